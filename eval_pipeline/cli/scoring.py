"""CLI: ``score`` and ``summary`` (docs/DESIGN.md 9, **contract**; ``scores``: score_export).

``eval-pipeline score --suite S --build B`` scores the build's stored runs against the suite's
items with the suite's metrics and writes the long scores table; ``summary`` prints
per-metric mean, n, unscored and pass^k as JSON (``--format text``: a table). ``score`` shows
what it is doing on a terminal's stderr and prints a table (``--format json``: the summary).
"""

from collections.abc import Mapping
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_table, progress, quiet_option
from eval_pipeline.cli.score_export import scores
from eval_pipeline.home import current_home


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
@format_option()
@quiet_option
def score(suite_ref: str, build: str, spread_repeats: int, fmt: str, quiet: bool) -> None:
    """Score a build's stored runs on its suite's metrics and store the scores."""
    from eval_pipeline.cli.stage import STAGE_INPUT_ERRORS, cli_stage, exit_if_metrics_errored
    from eval_pipeline.evaluation.stages import score_runs, stored_runs
    from eval_pipeline.judges.cache import CachedJudge
    from eval_pipeline.scoring.aggregate import summarise
    from eval_pipeline.scoring.store import ScoreStore

    with progress(f"score {build}: loading the suite, judge and scorers", quiet=quiet) as shown:
        stage = cli_stage(build, suite_ref, needs=("items", "judge", "scorers"))
        runs = stored_runs(stage)
        if not runs:
            raise InputError(f"build {build}: no stored traces under {stage.home.store}")
        # Scoring is one batch call per scorer: the display says what runs and for how long,
        # and counts the judge's answers of the requests it was asked (all metrics at once).
        shown.status(f"score {build}: {len(runs)} runs on {len(stage.scorers)} metrics")
        if isinstance(stage.judge, CachedJudge):
            stage.judge.watch(shown.advance)
        try:
            summary = score_runs(stage)
        except STAGE_INPUT_ERRORS as exc:
            raise InputError(str(exc)) from exc
        if spread_repeats >= 2:
            shown.status(f"score {build}: judge spread, {spread_repeats} repeats")
        spread = _measure_spread(stage, runs, spread_repeats) if spread_repeats >= 2 else []
    metrics = {
        m: s.to_json() for m, s in summarise(ScoreStore(stage.home.store).read(build)).items()
    }
    document = {
        "suite": stage.suite.suite,
        "items": len(stage.items),
        "runs_per_item": stage.runs_per_item,
        "runs_stored": len(runs),
        **summary.metadata(),
        "metrics": metrics,
        "spread": spread,
    }
    if fmt == "json":
        echo_json(document)
    else:
        _print_score(build, stage, summary, runs, metrics, spread)
    exit_if_metrics_errored(build, metrics)


def _print_score(
    build: str,
    stage: Any,
    summary: Any,
    runs: list[Any],
    metrics: Mapping[str, Mapping[str, Any]],
    spread: list[dict[str, Any]],
) -> None:
    """The ``score`` text output: the per-metric table, then the judge spread if measured."""
    judge = (
        f"judge {summary.judge_backend} {summary.judge_fingerprint}"
        if summary.judge_fingerprint
        else "no judge"
    )
    _print_metrics(
        metrics,
        f"build {build}: {summary.rows} score rows for {len(stage.items)} items x "
        f"{stage.runs_per_item} runs ({len(runs)} runs stored, "
        f"{summary.unmatched_runs} without a suite item); {judge}",
    )
    if summary.judge_trace_id is not None and summary.judge is not None:
        cost = summary.judge.cost_usd
        shown = f"${cost:.6f}" if cost is not None else f"unknown ({summary.judge.unknown})"
        click.echo(
            f"judge calls: {summary.judge.calls} ({summary.judge.input_tokens} input / "
            f"{summary.judge.output_tokens} output tokens, {shown}); "
            f"eval-pipeline traces show {summary.judge_trace_id}"
        )
    if spread:
        print_table(
            ("spread of", "mean stdev", "max range", "flip rate", "file"),
            (
                (r["metric_id"], r["mean_stdev"], r["max_range"], r["flip_rate"], r["path"])
                for r in spread
            ),
        )


def _print_metrics(metrics: Mapping[str, Mapping[str, Any]], title: str) -> None:
    """Per-metric summaries (``MetricSummary.to_json``) as one table."""
    ks = sorted({k for m in metrics.values() for k in m["pass^k"]}, key=int)
    print_table(
        ("metric", "mean", "n", "unscored", "errors", "n/a", *(f"pass^{k}" for k in ks)),
        (
            (
                metric_id,
                m["mean"],
                m["n"],
                m["unscored"],
                m["errors"],
                m["not_applicable"],
                *(m["pass^k"].get(k) for k in ks),
            )
            for metric_id, m in metrics.items()
        ),
        title=title,
    )


def _measure_spread(stage: Any, runs: list[Any], repeats: int) -> list[dict[str, Any]]:
    from eval_pipeline.evaluation.suite_parts import judged_metrics
    from eval_pipeline.scoring.registry import build_scorer
    from eval_pipeline.scoring.spread import judge_spread, save_spread
    from eval_pipeline.scoring.store import ScoreStore

    folder = ScoreStore(stage.home.store).folder(stage.build)
    # The cache would answer every repeat with the first verdict: measure the judge itself.
    raw_judge = getattr(stage.judge, "inner", stage.judge)
    by_id = {item.item_id: item for item in stage.dataset_items}
    cases = [(r, by_id[r.eval_context.item_id]) for r in runs if r.eval_context.item_id in by_id]
    found = []
    for metric_id in judged_metrics(stage.suite):
        args = stage.suite.metric(metric_id).args
        scorer = build_scorer(metric_id, judge=raw_judge, **args)
        report = judge_spread(scorer, cases[:10], repeats=repeats)
        found.append(
            {
                "metric_id": metric_id,
                "mean_stdev": report.mean_stdev,
                "max_range": report.max_range,
                "flip_rate": report.flip_rate,
                "path": str(save_spread(folder, report)),
            }
        )
    return found


@click.command("summary")
@click.option("--build", required=True)
@format_option(default="json")
def summary(build: str, fmt: str) -> None:
    """Print per-metric mean, n, unscored and pass^k of a build (JSON, or a table)."""
    from eval_pipeline.scoring.aggregate import summarise
    from eval_pipeline.scoring.store import ScoreStore

    stored = ScoreStore(current_home().store).read(build)
    if not stored:
        raise InputError(f"build {build}: no scores stored (run `eval-pipeline score` first)")
    metrics = {m: s.to_json() for m, s in summarise(stored).items()}
    if fmt == "json":
        echo_json({"build": build, "metrics": metrics})
    else:
        _print_metrics(metrics, f"build {build}")


COMMANDS: list[click.Command] = [score, scores, summary]
