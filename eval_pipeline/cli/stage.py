"""How CLI commands open a build's evaluation stage: bad input becomes one ``error:`` line.

Every evaluating command (``run``, ``score``, ``gate --candidate``, ``defects``) resolves the
build through ``evaluation.stage.open_stage``; this module resolves what the command needs up
front, so a missing suite, an unpublished dataset, a judge with no endpoint or a scorer given
wrong arguments is reported (exit 2, naming the suite and the setting) before any work starts.
"""

from pathlib import Path

from eval_pipeline.cli.errors import InputError
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
