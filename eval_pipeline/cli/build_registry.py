"""CLI: ``builds register|list|pin`` (the build registry the Dagster sensor watches)."""

import json

import click

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home
from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite


def _registry() -> BuildRegistry:
    return BuildRegistry(current_home().ensure().state_url)


@click.group("builds")
def builds() -> None:
    """Register candidate builds and pin baselines (usable from CI)."""


@builds.command("register")
@click.argument("build")
@click.option("--suite", "suite", required=True, help="Suite YAML path or shipped suite name.")
@click.option("--baseline", default=None, help="Build to compare with (default: the suite's pin).")
@click.option(
    "--runner",
    default=None,
    help="python:MODULE:FUNCTION[?k=v], http(s)://URL, or replay:BUILD; omit when "
    "the build's traces are ingested.",
)
@click.option("--pin-baseline", is_flag=True, help="Also pin this build as the suite's baseline.")
def register(
    build: str, suite: str, baseline: str | None, runner: str | None, pin_baseline: bool
) -> None:
    """Register BUILD; the candidate_build_sensor then requests its evaluation run."""
    from eval_pipeline.suites.config import SuiteError, load_suite

    try:
        config = load_suite(locate_suite(suite))
    except (SuiteNotFoundError, SuiteError) as exc:
        raise InputError(str(exc)) from exc
    registry = _registry()
    try:
        record = registry.register(build, suite=suite, baseline=baseline, runner=runner)
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    if pin_baseline:
        registry.pin_baseline(config.suite, build)
    click.echo(
        json.dumps(
            {
                "build": record.build,
                "suite": config.suite,
                "runner": record.runner,
                "baseline": record.baseline or registry.baseline_for(config.suite),
                "registered_at": record.registered_at.isoformat(),
            }
        )
    )


@builds.command("pin")
@click.argument("build")
@click.option("--suite", "suite", required=True, help="Suite YAML path or shipped suite name.")
def pin(build: str, suite: str) -> None:
    """Pin BUILD as the baseline of SUITE (re-pinning replaces the old pin)."""
    from eval_pipeline.suites.config import SuiteError, load_suite

    try:
        config = load_suite(locate_suite(suite))
    except (SuiteNotFoundError, SuiteError) as exc:
        raise InputError(str(exc)) from exc
    _registry().pin_baseline(config.suite, build)
    click.echo(json.dumps({"suite": config.suite, "baseline": build}))


@builds.command("list")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
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
        click.echo(json.dumps({"builds": records, "baselines": registry.baselines()}, indent=2))
        return
    for record in records:
        click.echo(f"{record['build']}\t{record['suite']}\t{record['runner'] or 'stored traces'}")
    for suite, build in registry.baselines().items():
        click.echo(f"baseline of {suite}: {build}")


COMMANDS: list[click.Command] = [builds]
