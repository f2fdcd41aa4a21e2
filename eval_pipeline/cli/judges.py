"""CLI: ``judges agreement`` and ``judges align`` (a suite's judge against human labels).

``eval-pipeline judges agreement --suite S [--labels F ...]`` prints, per label set (the
suite's calibration set, then each ``--labels`` file), accuracy, balanced accuracy, Cohen's
kappa, the false-pass and false-fail rates with percentile bootstrap intervals, and the
confusion matrix. ``eval-pipeline judges align --suite S [--labels F]`` fits a pass threshold
on the judge's graded score, cross-validates it (stratified k-fold, seeded) and adopts it only
when the balanced-accuracy gain's bootstrap interval lies above zero: exit 0 adopted, exit 1
refused (the figures say why), 2 bad input. ``--no-adopt`` evaluates without storing.
"""

from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_fields, print_table

_RATES = ("accuracy", "balanced_accuracy", "kappa", "false_pass_rate", "false_fail_rate")
_SUITE = click.option(
    "--suite", "suite_ref", required=True, help="Suite name or YAML path (its judge)."
)


@click.group("judges")
def judges_group() -> None:
    """A suite's judge against human labels: agreement reports and alignment."""


def _print_agreement(report: dict[str, Any]) -> None:
    c = report["confusion"]
    print_table(
        ("measure", "value", "low", "high"),
        ((name, report[name], *report["intervals"][name]) for name in _RATES),
        title=(
            f"{report['calibration_set']}: judge {report['judge_backend']} "
            f"{report['judge_fingerprint']}, n={report['n']} "
            f"(missing verdicts: {report['missing_verdicts']}; "
            f"{report['confidence']:.0%} percentile bootstrap intervals)"
        ),
    )
    print_table(
        ("", "human pass", "human fail"),
        [
            ("judge pass", c["judge_pass_human_pass"], c["judge_pass_human_fail"]),
            ("judge fail", c["judge_fail_human_pass"], c["judge_fail_human_fail"]),
        ],
        title="confusion matrix",
    )


@judges_group.command("agreement")
@_SUITE
@click.option(
    "--labels",
    "extra",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Another label file to report on (repeatable; same columns as a calibration set).",
)
@format_option()
def agreement_command(suite_ref: str, extra: tuple[Path, ...], fmt: str) -> None:
    """Agreement of the suite's judge with human labels, per label set."""
    from eval_pipeline.cli.gate import load_suite_config
    from eval_pipeline.evaluation.alignment_stage import agreement
    from eval_pipeline.home import current_home

    suite = load_suite_config(suite_ref)
    reports = _bad_input(suite_ref, lambda: agreement(current_home().ensure(), suite, extra))
    if fmt == "json":
        echo_json({"suite": suite.suite, "label_sets": reports})
        return
    for report in reports:
        _print_agreement(report)


@judges_group.command("align")
@_SUITE
@click.option(
    "--labels",
    "labels_path",
    type=click.Path(path_type=Path),
    help="Human labels to align on (default: the suite's calibration set).",
)
@click.option("--task", help="Rubric task the labels grade (default: the calibration set's).")
@click.option("--folds", type=click.IntRange(min=2), default=5, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Folds and bootstrap seed.")
@click.option("--resamples", type=click.IntRange(min=100), default=2000, show_default=True)
@click.option("--no-adopt", is_flag=True, help="Evaluate only: never store the alignment.")
@format_option()
def align_command(
    suite_ref: str,
    labels_path: Path | None,
    task: str | None,
    folds: int,
    seed: int,
    resamples: int,
    no_adopt: bool,
    fmt: str,
) -> None:
    """Fit a pass threshold to human labels; adopt it only when it earns its place."""
    from eval_pipeline.cli.gate import load_suite_config
    from eval_pipeline.evaluation.alignment_stage import align
    from eval_pipeline.home import current_home

    suite = load_suite_config(suite_ref)
    payload = _bad_input(
        suite_ref,
        lambda: align(
            current_home().ensure(),
            suite,
            labels_path,
            task=task,
            folds=folds,
            seed=seed,
            n_resamples=resamples,
            adopt=not no_adopt,
        ),
    )
    if fmt == "json":
        echo_json(payload)
    else:
        keys = ("suite", "labels", "task", "n", "folds", "threshold", "base_fingerprint")
        print_fields({key: payload[key] for key in keys}, title="alignment")
        click.echo(payload["reason"])
        if payload["new_fingerprint"]:
            click.echo(f"new judge fingerprint: {payload['new_fingerprint']}")
    if not payload["adopted"]:
        raise SystemExit(1)


def _bad_input(suite_ref: str, work: Any) -> Any:
    """``work()``, with bad input (suite, labels, rubric, judge) reported as exit 2."""
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
    from eval_pipeline.judges.errors import JudgeCannotJudge
    from eval_pipeline.judges.rubrics import RubricError

    try:
        return work()
    except (SuiteResolutionError, JudgeCannotJudge, RubricError, ValueError) as exc:
        raise InputError(f"--suite {suite_ref}: {exc}") from exc


COMMANDS: list[click.Command] = [judges_group]
