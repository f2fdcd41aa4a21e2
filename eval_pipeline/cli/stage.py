"""How CLI commands open a build's evaluation stage: bad input becomes one ``error:`` line.

Every evaluating command (``run``, ``score``, ``gate --candidate``, ``defects``) resolves the
build through ``evaluation.stage.open_stage``; this module resolves what the command needs up
front, so a missing suite, an unpublished dataset, a judge with no endpoint or a scorer given
wrong arguments is reported (exit 2, naming the suite and the setting) before any work starts.
It also holds how those commands end when the work itself failed: ``run`` exits 1 when any
run failed, ``score`` when any metric has ``error`` rows, each saying how many on stderr, so a
CI step never reads failure as success.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.evaluation.runs_stage import RunsSummary
from eval_pipeline.evaluation.stage import BuildNotRegisteredError, Scope, Stage, open_stage
from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
from eval_pipeline.home import current_home
from eval_pipeline.suites.errors import ConfigError
from eval_pipeline.suites.locate import SuiteNotFoundError

STAGE_INPUT_ERRORS = (
    BuildNotRegisteredError,
    SuiteNotFoundError,
    ConfigError,
    SuiteResolutionError,
)
"""What resolving a stage raises on bad input (never on an internal error)."""


def cli_stage(
    build: str,
    suite_ref: str | Path | None = None,
    *,
    runner: str | None = None,
    baseline: str | None = None,
    scope: Scope | None = None,
    needs: tuple[str, ...] = ("items",),
) -> Stage:
    """The build's stage with ``needs`` (``items``, ``judge``, ``scorers``) resolved.

    Raises:
        InputError: the build, its suite, a dataset, the judge or a scorer cannot be resolved.
    """
    home = current_home().ensure()
    try:
        stage = open_stage(home, build, suite_ref, runner=runner, baseline=baseline, scope=scope)
        for part in needs:
            getattr(stage, part)
    except STAGE_INPUT_ERRORS as exc:
        raise InputError(str(exc)) from exc
    return stage


WORK_FAILED = 1
"""Exit code of ``run`` when a run failed and of ``score`` when a metric has error rows."""


def exit_if_runs_failed(summary: RunsSummary) -> None:
    """Exit 1 with ``run B: N of M runs failed`` on stderr when any stored run failed."""
    if not summary.failed:
        return
    first = f"; first: {summary.failures[0]['reason']}" if summary.failures else ""
    click.echo(
        f"run {summary.build}: {summary.failed} of {summary.runs} runs failed{first} "
        "(each is listed under failures; --retry-failed redoes them)",
        err=True,
    )
    click.get_current_context().exit(WORK_FAILED)


def exit_if_metrics_errored(build: str, metrics: Mapping[str, Mapping[str, Any]]) -> None:
    """Exit 1 naming each metric with ``error`` rows (``MetricSummary.to_json`` values)."""
    errored = {m: int(s["errors"]) for m, s in metrics.items() if s["errors"]}
    if not errored:
        return
    listed = ", ".join(f"{m} ({n} error rows)" for m, n in errored.items())
    click.echo(
        f"score {build}: {len(errored)} of {len(metrics)} metrics have errors: {listed}; "
        f"`eval-pipeline scores --build {build}` lists each row's reason",
        err=True,
    )
    click.get_current_context().exit(WORK_FAILED)
