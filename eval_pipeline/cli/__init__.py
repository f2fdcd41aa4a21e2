"""The ``eval-pipeline`` command (docs/DESIGN.md section 9, **contract**).

Each command group lives in its own module and is registered here. Exit codes: 0 success (or a
passing gate), 1 a failing gate or validation, 2 bad usage or bad input (one ``error: ...``
line naming the file, field or row), 3 an internal error (one ``internal error: ...`` line; set
``EVAL_PIPELINE_TRACEBACK=1`` for the traceback), so CI can tell a blocked release from a
broken tool.
"""

import os
import sys
import traceback

import click

from eval_pipeline.cli import (
    alerts,
    build_registry,
    builds,
    calibrate,
    compare,
    datasets,
    demo,
    detect,
    export,
    feedback,
    gate,
    history,
    import_cmd,
    ingest,
    init,
    judges,
    metrics,
    report,
    review,
    scoring,
    serve,
    sessions,
    traces,
    triage,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="eval-pipeline")
def cli() -> None:
    """Evaluate agent builds from their traces and gate releases statistically."""


for module in (
    init,
    demo,
    ingest,
    traces,
    sessions,
    datasets,
    build_registry,
    builds,
    scoring,
    gate,
    calibrate,
    judges,
    metrics,
    triage,
    serve,
    export,
    import_cmd,
    detect,
    alerts,
    report,
    compare,
    history,
    feedback,
    review,
):
    for command in module.COMMANDS:
        cli.add_command(command)


INTERNAL_ERROR = 3
"""Exit code of an exception no command anticipated."""


def main() -> None:
    """Console-script entry point: the commands' exit codes, and 3 for an internal error."""
    try:
        cli(standalone_mode=True)
    except Exception as exc:  # click has handled usage, input and exit codes; this is ours
        if os.environ.get("EVAL_PIPELINE_TRACEBACK"):
            traceback.print_exc()
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        click.echo(f"internal error: {type(exc).__name__}: {message}", err=True)
        sys.exit(INTERNAL_ERROR)
