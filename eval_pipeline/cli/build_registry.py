"""CLI: ``builds register|list|pin`` (the build registry the Dagster sensor watches).

``register`` stores the suite as the absolute path of its file (a name is looked up where
suites are found), so the sensor and the UI resolve it from any folder, and refuses (exit 2,
naming what is missing, nothing registered) a suite that could not be evaluated: a pinned
dataset that is not published, a judge calibration set that is not shipped, or a labels file
that cannot calibrate (unreadable, a column its rubric needs missing, a bad label). ``register``
and ``pin`` print one JSON object by default (CI scripts read it; ``--format text``: a table);
``list`` prints a table by default (``--format json``: builds and pins).
"""

from pathlib import Path

import click

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_fields, print_table
from eval_pipeline.home import current_home
from eval_pipeline.suites.config import SuiteConfig
from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite


def _registry() -> BuildRegistry:
    return BuildRegistry(current_home().ensure().state_url)


def _resolvable_suite(reference: str) -> tuple[Path, SuiteConfig]:
    """The suite's absolute path and config, once everything it needs resolves.

    Raises:
        InputError: the suite is not found or invalid, a pinned dataset is not published, or
            its judge's calibration set cannot be used.
    """
    from eval_pipeline.datasets.store import default_dataset_store
    from eval_pipeline.evaluation.calibration_sets import (
        check_calibration_set,
        suite_calibration_set,
    )
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
    from eval_pipeline.judges.label_files import LabelFileError
    from eval_pipeline.judges.rubrics import RubricError
    from eval_pipeline.suites.config import SuiteError, load_suite

    try:
        path = locate_suite(reference)
        config = load_suite(path, store=default_dataset_store())
    except (SuiteNotFoundError, SuiteError) as exc:
        raise InputError(str(exc)) from exc
    if config.judge is not None:
        try:
            check_calibration_set(suite_calibration_set(config))
        except (SuiteResolutionError, LabelFileError, RubricError) as exc:
            raise InputError(f"{path}: judge calibration: {exc}") from exc
    return path, config


@click.group("builds")
def builds() -> None:
    """Register candidate builds and pin baselines (usable from CI)."""


@builds.command("register")
@click.argument("build")
@click.option(
    "--suite",
    "suite",
    required=True,
    help="Suite YAML path or suite name (stored as the file's absolute path).",
)
@click.option("--baseline", default=None, help="Build to compare with (default: the suite's pin).")
@click.option(
    "--runner",
    default=None,
    help="python:MODULE:FUNCTION[?k=v], http(s)://URL, or replay:BUILD; omit when "
    "the build's traces are ingested.",
)
@click.option("--pin-baseline", is_flag=True, help="Also pin this build as the suite's baseline.")
@format_option(default="json")
def register(
    build: str, suite: str, baseline: str | None, runner: str | None, pin_baseline: bool, fmt: str
) -> None:
    """Register BUILD; the candidate_build_sensor then requests its evaluation run."""
    path, config = _resolvable_suite(suite)
    registry = _registry()
    try:
        record = registry.register(build, suite=str(path), baseline=baseline, runner=runner)
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    if pin_baseline:
        registry.pin_baseline(config.suite, build)
    document = {
        "build": record.build,
        "suite": config.suite,
        "suite_path": record.suite,
        "runner": record.runner,
        "baseline": record.baseline or registry.baseline_for(config.suite),
        "registered_at": record.registered_at.isoformat(),
    }
    if fmt == "json":
        echo_json(document, indent=None)
    else:
        print_fields(document, title=f"registered {record.build}")


@builds.command("pin")
@click.argument("build")
@click.option("--suite", "suite", required=True, help="Suite YAML path or shipped suite name.")
@format_option(default="json")
def pin(build: str, suite: str, fmt: str) -> None:
    """Pin BUILD as the baseline of SUITE (re-pinning replaces the old pin)."""
    from eval_pipeline.suites.config import SuiteError, load_suite

    try:
        config = load_suite(locate_suite(suite))
    except (SuiteNotFoundError, SuiteError) as exc:
        raise InputError(str(exc)) from exc
    _registry().pin_baseline(config.suite, build)
    if fmt == "json":
        echo_json({"suite": config.suite, "baseline": build}, indent=None)
    else:
        click.echo(f"baseline of {config.suite}: {build}")


@builds.command("list")
@format_option()
def list_builds(fmt: str) -> None:
    """List registered builds and baseline pins."""
    registry = _registry()
    records = [
        {
            "build": r.build,
            "suite": r.suite,
            "baseline": r.baseline,
            "runner": r.runner,
            "registered_at": r.registered_at.isoformat(),
            "requested": r.requested,
        }
        for r in registry.all()
    ]
    if fmt == "json":
        echo_json({"builds": records, "baselines": registry.baselines()})
        return
    print_table(
        ("build", "suite", "baseline", "runner", "registered", "requested"),
        (
            (
                r["build"],
                r["suite"],
                r["baseline"],
                r["runner"] or "stored traces",
                r["registered_at"],
                r["requested"],
            )
            for r in records
        ),
        title="builds",
    )
    print_table(("suite", "pinned baseline"), registry.baselines().items(), title="baselines")


COMMANDS: list[click.Command] = [builds]
