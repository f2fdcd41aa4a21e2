"""CLI: ``calibrate``: a judge's agreement with human labels (docs/DESIGN.md 9, **contract**).

``eval-pipeline calibrate --labels LABELS --verdicts VERDICTS --format json`` compares existing
verdicts; ``eval-pipeline calibrate --judge J --labels LABELS [--task T] [--limit N]`` runs the
judge (``offline-minilm``, or a model served at ``EVAL_PIPELINE_JUDGE_BASE_URL``) on the
labelled items first, through the judge cache, and reports its call counts too. Text output
is tables; ``calibrate variance`` lives in ``calibrate_variance``.
"""

from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.calibrate_variance import variance_command
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_fields, print_table


def _print_report(payload: dict[str, Any]) -> None:
    rates = ("accuracy", "balanced_accuracy", "kappa", "false_pass_rate", "false_fail_rate")
    print_table(
        ("measure", "value", "low", "high"),
        ((name, payload[name], *payload["intervals"][name]) for name in rates),
        title=f"n={payload['n']} (missing verdicts: {payload['missing_verdicts']})",
    )
    slices = [
        (f"{column}={value}", stats["n"], stats["accuracy"], stats["false_pass_rate"])
        for column, values in payload["slices"].items()
        for value, stats in values.items()
    ]
    if slices:
        print_table(("slice", "n", "accuracy", "false_pass_rate"), slices, title="slices")
    if "judge" in payload:
        print_fields(payload["judge"], title="judge")


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
    default=None,
    help="Judge calls in flight at once (with --judge; default: the judge's, 16).",
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
@format_option()
@click.pass_context
def calibrate_command(
    ctx: click.Context,
    labels_path: Path | None,
    verdicts_path: Path | None,
    judge_model: str | None,
    task: str,
    rubric_version: str | None,
    limit: int | None,
    workers: int | None,
    save_verdicts: Path | None,
    slices: tuple[str, ...],
    threshold: float,
    seed: int,
    resamples: int,
    fmt: str,
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
    if fmt == "json":
        echo_json(payload)
    else:
        _print_report(payload)


def _run_judge(
    labels: Any,
    labels_path: Path,
    model: str,
    task: str,
    rubric_version: str | None,
    workers: int | None,
) -> tuple[Any, dict[str, Any]]:
    from eval_pipeline.judges.errors import JudgeCannotJudge
    from eval_pipeline.judges.factory import JudgeConfigError, judge_from_config
    from eval_pipeline.judges.labelled_run import build_requests, run_judge
    from eval_pipeline.judges.limits import JudgeLimits
    from eval_pipeline.judges.rubrics import RubricError, load_rubric

    try:
        rubric = load_rubric(task, rubric_version)
    except RubricError as exc:
        raise InputError(f"--task {task}: {exc}") from exc
    try:
        limits = None if workers is None else JudgeLimits(max_concurrency=workers)
        judge = judge_from_config(model, rubric_version, limits=limits)
    except JudgeConfigError as exc:
        raise InputError(f"--judge {model}: {exc}") from exc
    requests = build_requests(labels, rubric, str(labels_path))
    try:
        run = run_judge(judge, requests)
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


calibrate_command.add_command(variance_command)

COMMANDS: list[click.Command] = [calibrate_command]
