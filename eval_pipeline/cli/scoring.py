"""CLI: ``score``, ``scores`` and ``summary`` (DESIGN.md section 9, **contract**).

``eval-pipeline score --suite S --build B`` scores the build's stored runs against the suite's
items with the suite's metrics and writes the long scores table; ``scores`` exports the rows as
CSV, JSON or Parquet, with everything ``gate --candidate-scores`` needs to give the store's
verdict (per-run latency and cost, scorer version, judge, dataset); ``summary`` prints
per-metric mean, n, unscored and pass^k as JSON.
"""

import csv
import io
import json
from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home
from eval_pipeline.scoring.score import SCORE_COLUMNS

LONG_COLUMNS = SCORE_COLUMNS[: SCORE_COLUMNS.index("span_ids") + 1]
"""The contract's long-row columns (build ... span_ids)."""
EXPORT_COLUMNS = (
    *LONG_COLUMNS,
    "scorer_id",
    "scorer_version",
    "judge_fingerprint",
    "judge_backend",
    "dataset",
    "dataset_version",
    "latency_s",
    "cost_usd",
)
"""Columns of a ``scores`` export, in order; the build's slice columns follow."""


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
    from eval_pipeline.cli.stage import STAGE_INPUT_ERRORS, cli_stage
    from eval_pipeline.evaluation.stages import score_runs, stored_runs
    from eval_pipeline.scoring.aggregate import summarise
    from eval_pipeline.scoring.store import ScoreStore

    stage = cli_stage(build, suite_ref, needs=("items", "judge", "scorers"))
    runs = stored_runs(stage)
    if not runs:
        raise InputError(f"build {build}: no stored traces under {stage.home.store}")
    click.echo(
        f"build {build}: scoring {len(runs)} stored runs against {len(stage.items)} items x "
        f"{stage.runs_per_item} runs on {len(stage.scorers)} metrics",
        err=True,
    )
    try:
        summary = score_runs(stage)
    except STAGE_INPUT_ERRORS as exc:
        raise InputError(str(exc)) from exc
    judge = (
        f"judge {summary.judge_backend} {summary.judge_fingerprint}"
        if summary.judge_fingerprint
        else "no judge"
    )
    click.echo(
        f"build {build}: {summary.rows} score rows for {len(stage.items)} items x "
        f"{stage.runs_per_item} runs ({len(runs)} runs stored, "
        f"{summary.unmatched_runs} without a suite item); {judge}"
    )
    for metric_id, metric in summarise(ScoreStore(stage.home.store).read(build)).items():
        mean = "-" if metric.mean is None else f"{metric.mean:.3f}"
        click.echo(
            f"  {metric_id:<32} mean {mean:>6}  n {metric.n:>4}  "
            f"unscored {metric.unscored:>4}  errors {metric.errors:>3}"
        )
    if spread_repeats >= 2:
        _measure_spread(stage, runs, spread_repeats)


def _measure_spread(stage: Any, runs: list[Any], repeats: int) -> None:
    from eval_pipeline.evaluation.suite_parts import judged_metrics
    from eval_pipeline.scoring.registry import build_scorer
    from eval_pipeline.scoring.spread import judge_spread, save_spread
    from eval_pipeline.scoring.store import ScoreStore

    folder = ScoreStore(stage.home.store).folder(stage.build)
    # The cache would answer every repeat with the first verdict: measure the judge itself.
    raw_judge = getattr(stage.judge, "inner", stage.judge)
    by_id = {item.item_id: item for item in stage.dataset_items}
    cases = [(r, by_id[r.eval_context.item_id]) for r in runs if r.eval_context.item_id in by_id]
    for metric_id in judged_metrics(stage.suite):
        args = stage.suite.metric(metric_id).args
        scorer = build_scorer(metric_id, judge=raw_judge, **args)
        report = judge_spread(scorer, cases[:10], repeats=repeats)
        path = save_spread(folder, report)
        click.echo(
            f"  spread {metric_id}: mean stdev {report.mean_stdev:.4f}, max range "
            f"{report.max_range:.4f}, flip rate {report.flip_rate:.2f} -> {path}"
        )


def _export_frame(build: str) -> Any:
    """The build's long rows with the export columns, then its slice columns."""
    import pandas as pd

    from eval_pipeline.scoring.store import ScoreStore

    frame = ScoreStore(current_home().store).read_frame(build)
    if frame.empty:
        raise InputError(f"build {build}: no scores stored (run `eval-pipeline score` first)")
    for column in ("latency_s", "cost_usd"):
        if column not in frame.columns:
            frame[column] = float("nan")
    slices = sorted(set(frame.columns) - set(SCORE_COLUMNS) - set(EXPORT_COLUMNS))
    out = frame[[*EXPORT_COLUMNS, *slices]].copy()
    out["scorer_version"] = out["scorer_version"].astype("int64")
    return out.astype({c: "object" for c in slices}).where(pd.notna(out), None)


def _records(frame: Any) -> list[dict[str, Any]]:
    """JSON-safe rows: null for missing values, span ids as lists."""
    rows: list[dict[str, Any]] = frame.to_dict(orient="records")
    for row in rows:
        row["span_ids"] = list(row["span_ids"] or [])
    return rows


def _csv(frame: Any) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(frame.columns), lineterminator="\n")
    writer.writeheader()
    for row in _records(frame):
        writer.writerow(
            {
                **{k: "" if v is None else v for k, v in row.items()},
                "span_ids": " ".join(row["span_ids"]),
            }
        )
    return buffer.getvalue()


@click.command("scores")
@click.option("--build", required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "parquet"]),
    default="csv",
    show_default=True,
)
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the export here instead of stdout (required for parquet).",
)
def scores(build: str, fmt: str, output: Path | None) -> None:
    """Export a build's long score rows (one per item x run x metric), gate-ready.

    Columns: build, item_id, run_index, metric_id, value, status, reason, trace_id, span_ids,
    scorer_id, scorer_version, judge_fingerprint, judge_backend, dataset, dataset_version,
    latency_s, cost_usd, then one column per slice.
    """
    if fmt == "parquet" and output is None:
        raise InputError("--format parquet writes a binary file: give --output FILE")
    frame = _export_frame(build)
    if fmt == "parquet":
        assert output is not None
        frame.to_parquet(output, index=False)
        click.echo(f"build {build}: {len(frame)} score rows written to {output}", err=True)
        return
    text = (
        json.dumps(_records(frame), indent=2, default=str) + "\n" if fmt == "json" else _csv(frame)
    )
    if output is None:
        click.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    click.echo(f"build {build}: {len(frame)} score rows written to {output}", err=True)


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
