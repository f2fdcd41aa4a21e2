"""The ``eval-pipeline`` command (DESIGN.md section 9, **contract**).

Each command group lives in its own module and is registered here. Exit codes: 0 success (or a
passing gate), 1 a failing gate or validation, 2 bad usage or bad input.
"""

import click

from eval_pipeline.cli import (
    bench,
    build_registry,
    builds,
    calibrate,
    datasets,
    demo,
    gate,
    ingest,
    scoring,
    serve,
    traces,
    triage,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="eval-pipeline")
def cli() -> None:
    """Evaluate agent builds from their traces and gate releases statistically."""


for module in (
    demo,
    ingest,
    traces,
    datasets,
    build_registry,
    builds,
    scoring,
    gate,
    calibrate,
    triage,
    serve,
    bench,
):
    for command in module.COMMANDS:
        cli.add_command(command)


def main() -> None:
    """Console-script entry point."""
    cli()
