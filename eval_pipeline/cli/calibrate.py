"""CLI: ``calibrate``: a judge's agreement with human labels (DESIGN.md section 9, **contract**).

``eval-pipeline calibrate --labels LABELS --verdicts VERDICTS --format json`` compares existing
verdicts; ``eval-pipeline calibrate --judge J --labels LABELS [--task T] [--limit N]`` runs the
judge (``offline-minilm``, or a model served at ``EVAL_PIPELINE_JUDGE_BASE_URL``) on the
labelled items first, through the judge cache, and reports its call counts too.

``eval-pipeline calibrate variance --suite S --repeats K --target-half-width W`` asks the
suite's judge K times per item of the suite's calibration set and reports the spread of its
verdicts and the runs per item that reach an interval of half-width W on the suite mean; the
result is stored in the judge's calibration report (``variance``).
"""

import json
from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.errors import InputError


def _report_text(payload: dict[str, Any]) -> str:
    def fmt(value: object) -> str:
        return (
            "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)
        )

    lines = [f"n={payload['n']} (missing verdicts: {payload['missing_verdicts']})"]
    for name in ("accuracy", "balanced_accuracy", "kappa", "false_pass_rate", "false_fail_rate"):
        low, high = payload["intervals"][name]
        lines.append(f"{name:>18}: {fmt(payload[name])}  [{fmt(low)}, {fmt(high)}]")
    for column, values in payload["slices"].items():
        for value, stats in values.items():
            lines.append(
                f"  {column}={value}: n={stats['n']} accuracy={fmt(stats['accuracy'])} "
                f"false_pass_rate={fmt(stats['false_pass_rate'])}"
            )
    if "judge" in payload:
        lines.append("judge: " + json.dumps(payload["judge"], sort_keys=True))
    return "\n".join(lines)


@click.group("calibrate", invoke_without_command=True)
@click.option(
    "--labels",
    "labels_path",
    type=click.Path(path_type=Path),
    help="Human labels: item_id, label (pass/fail or a number), slice columns (required).",
)
@click.option(
    "--verdicts",
    "verdicts_path",
    type=click.Path(path_type=Path),
    help="Judge verdicts: item_id, verdict (pass/fail or a number).",
)
@click.option("--judge", "judge_model", help="Run this judge first (offline-minilm or a model id).")
@click.option(
    "--task",
    default="faithfulness",
    show_default=True,
    help="Rubric task the judge is asked (with --judge).",
)
@click.option("--rubric-version", default=None, help="Rubric set version (newest by default).")
@click.option("--limit", type=click.IntRange(min=1), help="Judge only the first N labelled items.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Concurrent judge calls (with --judge).",
)
@click.option(
    "--save-verdicts",
    type=click.Path(path_type=Path),
    help="Write the judge's verdicts here (.csv/.jsonl/.parquet) for later runs.",
)
@click.option("--slice", "slices", multiple=True, help="Slice column (repeatable).")
@click.option(
    "--threshold",
    type=float,
    default=0.5,
    show_default=True,
    help="Graded labels/verdicts pass at >= threshold.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--resamples", type=click.IntRange(min=100), default=2000, show_default=True)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "text"]),
    default="text",
    show_default=True,
)
@click.pass_context
def calibrate_command(
    ctx: click.Context,
    labels_path: Path | None,
    verdicts_path: Path | None,
    judge_model: str | None,
    task: str,
    rubric_version: str | None,
    limit: int | None,
    workers: int,
    save_verdicts: Path | None,
    slices: tuple[str, ...],
    threshold: float,
    seed: int,
    resamples: int,
    output_format: str,
) -> None:
    """Measure a judge against human labels: accuracy, kappa, false-pass/false-fail rates."""
    from eval_pipeline.judges.calibration import calibrate
    from eval_pipeline.judges.label_files import LabelFileError, read_table

    if ctx.invoked_subcommand is not None:
        return
    if labels_path is None:
        raise click.UsageError("Missing option '--labels'.")
    if (verdicts_path is None) == (judge_model is None):
        raise click.UsageError("give exactly one of --verdicts or --judge")
    try:
        labels = read_table(labels_path)
        if limit is not None:
            labels = labels.head(limit)
        judge_info: dict[str, Any] | None = None
        if judge_model is not None:
            verdicts, judge_info = _run_judge(
                labels, labels_path, judge_model, task, rubric_version, workers
            )
            source = f"verdicts of {judge_model}"
            if save_verdicts is not None:
                _save(verdicts, save_verdicts)
        else:
            assert verdicts_path is not None
            verdicts, source = read_table(verdicts_path), str(verdicts_path)
        report = calibrate(
            labels,
            verdicts,
            slice_columns=slices,
            seed=seed,
            n_resamples=resamples,
            threshold=threshold,
            labels_source=str(labels_path),
            verdicts_source=source,
        )
    except LabelFileError as exc:
        raise InputError(f"{exc}") from exc
    except ValueError as exc:
        raise InputError(f"{labels_path}: {exc}") from exc
    payload = report.to_json()
    if judge_info is not None:
        payload["judge"] = judge_info
    click.echo(json.dumps(payload, indent=2) if output_format == "json" else _report_text(payload))


def _run_judge(
    labels: Any,
    labels_path: Path,
    model: str,
    task: str,
    rubric_version: str | None,
    workers: int,
) -> tuple[Any, dict[str, Any]]:
    from eval_pipeline.judges.errors import JudgeCannotJudge
    from eval_pipeline.judges.factory import JudgeConfigError, judge_from_config
    from eval_pipeline.judges.labelled_run import build_requests, run_judge
    from eval_pipeline.judges.rubrics import RubricError, load_rubric

    try:
        rubric = load_rubric(task, rubric_version)
    except RubricError as exc:
        raise InputError(f"--task {task}: {exc}") from exc
    try:
        judge = judge_from_config(model, rubric_version)
    except JudgeConfigError as exc:
        raise InputError(f"--judge {model}: {exc}") from exc
    requests = build_requests(labels, rubric, str(labels_path))
    try:
        run = run_judge(judge, requests, workers=workers)
    except JudgeCannotJudge as exc:
        raise InputError(f"judge {judge.backend} cannot judge task {task}: {exc}") from exc
    fingerprint = judge.fingerprint
    info = {
        "backend": judge.backend,
        "model": fingerprint.model,
        "fingerprint": fingerprint.digest,
        "rubric": rubric.ref,
        "task": task,
        "items": len(requests),
        "errors": len(run.errors),
        "calls": judge.stats.calls,
        "cache_hits": judge.stats.hits,
        "cache_misses": judge.stats.misses,
    }
    return run.verdicts, info


def _save(frame: Any, path: Path) -> None:
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix in (".jsonl", ".ndjson"):
        frame.to_json(path, orient="records", lines=True)
    elif suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        raise InputError(f"--save-verdicts {path}: use .csv, .jsonl or .parquet")


@calibrate_command.command("variance")
@click.option("--suite", "suite_ref", required=True, help="Suite name or YAML path (its judge).")
@click.option(
    "--repeats",
    type=click.IntRange(min=2),
    required=True,
    help="Verdicts asked per labelled item (at least 2).",
)
@click.option(
    "--target-half-width",
    type=click.FloatRange(min=0.0, min_open=True),
    required=True,
    help="Half-width wanted for the interval on the suite mean score.",
)
@click.option(
    "--confidence",
    type=click.FloatRange(0.5, 1.0, max_open=True),
    default=0.95,
    show_default=True,
)
@click.option(
    "--items",
    "n_items",
    type=click.IntRange(min=1),
    help="Suite size the advice is for (default: the labelled items used).",
)
@click.option("--limit", type=click.IntRange(min=2), help="Use only the first N labelled items.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "text"]),
    default="text",
    show_default=True,
)
def variance_command(
    suite_ref: str,
    repeats: int,
    target_half_width: float,
    confidence: float,
    n_items: int | None,
    limit: int | None,
    workers: int,
    output_format: str,
) -> None:
    """Judge variance: repeated verdicts per item -> spread -> runs per item for a target."""
    from eval_pipeline.cli.gate import load_suite_config
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
    from eval_pipeline.evaluation.variance_stage import measure_judge_variance
    from eval_pipeline.home import current_home
    from eval_pipeline.judges.errors import JudgeCannotJudge

    suite = load_suite_config(suite_ref)
    try:
        result = measure_judge_variance(
            current_home().ensure(),
            suite,
            repeats=repeats,
            target_half_width=target_half_width,
            confidence=confidence,
            n_items=n_items,
            limit=limit,
            workers=workers,
        )
    except (SuiteResolutionError, JudgeCannotJudge) as exc:
        raise InputError(f"--suite {suite_ref}: {exc}") from exc
    except ValueError as exc:
        raise InputError(f"--suite {suite_ref}: {exc}") from exc
    click.echo(json.dumps(result, indent=2) if output_format == "json" else _variance_text(result))


def _variance_text(result: dict[str, Any]) -> str:
    runs = result["runs_per_item"]
    return "\n".join(
        [
            f"judge {result['judge_backend']} {result['judge_fingerprint']} on "
            f"{result['calibration_set']}: {result['items']} items x {result['repeats']} verdicts"
            f" ({result['errors']} items with failures)",
            f"within-item variance {result['within_variance']:.4g}, between-item variance "
            f"{result['between_variance']:.4g}",
            f"half-width with one run per item: {result['half_width_with_one_run']:.4f}",
            f"runs per item for half-width {result['target_half_width']:g} over "
            f"{result['advice_items']} items: "
            f"{'not reachable by runs' if runs is None else runs} ({result['reason']})",
        ]
    )


COMMANDS: list[click.Command] = [calibrate_command]
