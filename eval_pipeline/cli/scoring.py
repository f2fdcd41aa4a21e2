"""CLI: ``score``, ``scores`` and ``summary`` (DESIGN.md section 9, **contract**).

``eval-pipeline score --suite S --build B`` scores the build's stored runs against the suite's
items with the suite's metrics and writes the long scores table; ``scores`` prints the rows as
CSV or JSON; ``summary`` prints per-metric mean, n, unscored and pass^k as JSON.
"""

import csv
import io
import json
from dataclasses import replace
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home
from eval_pipeline.scoring.score import SCORE_COLUMNS

LONG_COLUMNS = SCORE_COLUMNS[: SCORE_COLUMNS.index("span_ids") + 1]
"""The contract's long-row columns (build ... span_ids); slice columns follow."""


def _judge_for(suite: Any) -> Any:
    from eval_pipeline.judges.factory import judge_from_config, judge_from_suite

    if suite.judge is not None:
        return judge_from_suite(suite)
    return judge_from_config("offline-minilm")


def _scorers(metric_ids: tuple[str, ...], judge: Any) -> list[Any]:
    from eval_pipeline.scoring.registry import JUDGE_METRICS, build_scorer

    scorers = []
    for metric_id in metric_ids:
        needs_judge = metric_id in JUDGE_METRICS or "." in metric_id
        scorers.append(
            build_scorer(metric_id, judge=judge) if needs_judge else build_scorer(metric_id)
        )
    return scorers


@click.command("score")
@click.option("--suite", "suite_ref", required=True, help="Suite name or YAML path.")
@click.option("--build", required=True, help="Build id whose stored runs are scored.")
@click.option(
    "--judge-spread",
    "spread_repeats",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Also rescore up to 10 runs this many times with the uncached judge and store the "
    "spread of each judge-based metric (0: off).",
)
def score(suite_ref: str, build: str, spread_repeats: int) -> None:
    """Score a build's stored runs on its suite's metrics and store the scores."""
    from eval_pipeline.evaluation.stage import dataset_store
    from eval_pipeline.runners.failure import failure_reason
    from eval_pipeline.scoring.aggregate import summarise
    from eval_pipeline.scoring.batch import score_build
    from eval_pipeline.scoring.store import ScoreStore
    from eval_pipeline.suites.config import SuiteError, load_suite
    from eval_pipeline.suites.locate import locate_suite
    from eval_pipeline.suites.prices import PriceTable, known_cost_of_run
    from eval_pipeline.traces.store.trace_store import TraceStore

    home = current_home().ensure()
    try:
        suite = load_suite(locate_suite(suite_ref))
    except (SuiteError, FileNotFoundError, LookupError) as exc:
        raise InputError(f"suite {suite_ref}: {exc}") from exc
    store = dataset_store(home)
    items = []
    for ref in suite.datasets:
        try:
            dataset = store.load(ref.name, ref.version)
        except LookupError as exc:
            raise InputError(f"suite {suite.suite}: dataset {ref.ref}: {exc}") from exc
        # Items inherit the dataset-wide tool schemas (argument checking is schema-aware).
        items += [
            item if item.tool_schemas else replace(item, tool_schemas=dataset.tool_schemas)
            for item in dataset.items
        ]
    runs = TraceStore(home.store).runs(build)
    if not runs:
        raise InputError(f"build {build}: no stored traces under {home.store}")
    judge = _judge_for(suite)
    prices = PriceTable.load()

    result = score_build(
        build,
        runs,
        items,
        _scorers(suite.metric_ids, judge),
        runs_per_item=suite.runs_per_item,
        cost=lambda run: known_cost_of_run(run, prices),
        failure=lambda run: failure_reason(run.spans),
    )
    written = ScoreStore(home.store).write(build, result.scores, run_metrics=result.run_metrics)
    click.echo(
        f"build {build}: {written} score rows for {len(items)} items x "
        f"{suite.runs_per_item} runs ({len(runs)} runs stored, "
        f"{len(result.unmatched)} without a suite item); judge {judge.backend} "
        f"{judge.fingerprint.digest}"
    )
    for metric_id, summary in summarise(result.scores).items():
        mean = "-" if summary.mean is None else f"{summary.mean:.3f}"
        click.echo(
            f"  {metric_id:<32} mean {mean:>6}  n {summary.n:>4}  "
            f"unscored {summary.unscored:>4}  errors {summary.errors:>3}"
        )
    if spread_repeats >= 2:
        folder = ScoreStore(home.store).folder(build)
        _measure_spread(folder, suite, judge, runs, items, spread_repeats)


def _measure_spread(
    folder: Any, suite: Any, judge: Any, runs: list[Any], items: list[Any], repeats: int
) -> None:
    from eval_pipeline.scoring.registry import JUDGE_METRICS, build_scorer
    from eval_pipeline.scoring.spread import judge_spread, save_spread

    # The cache would answer every repeat with the first verdict: measure the judge itself.
    raw_judge = getattr(judge, "inner", judge)
    by_id = {item.item_id: item for item in items}
    cases = [(r, by_id[r.eval_context.item_id]) for r in runs if r.eval_context.item_id in by_id]
    for metric_id in (m for m in suite.metric_ids if m in JUDGE_METRICS):
        report = judge_spread(build_scorer(metric_id, judge=raw_judge), cases[:10], repeats=repeats)
        path = save_spread(folder, report)
        click.echo(
            f"  spread {metric_id}: mean stdev {report.mean_stdev:.4f}, max range "
            f"{report.max_range:.4f}, flip rate {report.flip_rate:.2f} -> {path}"
        )


def _rows(build: str) -> list[dict[str, Any]]:
    from eval_pipeline.scoring.store import ScoreStore

    scores = ScoreStore(current_home().store).read(build)
    if not scores:
        raise InputError(f"build {build}: no scores stored (run `eval-pipeline score` first)")
    return [
        {
            "build": s.build,
            "item_id": s.item_id,
            "run_index": s.run_index,
            "metric_id": s.metric_id,
            "value": s.value,
            "status": s.status,
            "reason": s.reason,
            "trace_id": s.trace_id,
            "span_ids": list(s.span_ids),
            **s.slices,
        }
        for s in scores
    ]


@click.command("scores")
@click.option("--build", required=True)
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True
)
def scores(build: str, fmt: str) -> None:
    """Print a build's long score rows (one per item x run x metric) with slice columns."""
    rows = _rows(build)
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, default=str))
        return
    slices = sorted({k for row in rows for k in row} - set(LONG_COLUMNS))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=[*LONG_COLUMNS, *slices], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {
                **row,
                "span_ids": " ".join(row["span_ids"]),
                "value": "" if row["value"] is None else row["value"],
            }
        )
    click.echo(buffer.getvalue(), nl=False)


@click.command("summary")
@click.option("--build", required=True)
@click.option("--format", "fmt", type=click.Choice(["json"]), default="json", show_default=True)
def summary(build: str, fmt: str) -> None:
    """Print per-metric mean, n, unscored and pass^k of a build as JSON."""
    from eval_pipeline.scoring.aggregate import summarise
    from eval_pipeline.scoring.store import ScoreStore

    stored = ScoreStore(current_home().store).read(build)
    if not stored:
        raise InputError(f"build {build}: no scores stored (run `eval-pipeline score` first)")
    metrics = {m: s.to_json() for m, s in summarise(stored).items()}
    click.echo(json.dumps({"build": build, "metrics": metrics}, indent=2))


COMMANDS: list[click.Command] = [score, scores, summary]
