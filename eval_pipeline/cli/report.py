"""CLI: `report` (see the package docstring for exit codes).

``eval-pipeline report --build B [--out DIR]`` (**contract**, DESIGN.md section 9) writes the
build's stored gate report as one standalone HTML file, ``DIR/<build>.html`` (default
``<home>/reports``), and prints its path. A build never gated in the home is bad input (exit 2).
"""

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home


@click.command("report")
@click.option("--build", required=True, help="The gated build to report on.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, writable=True),
    default=None,
    help="Folder to write <build>.html into (default: <home>/reports).",
)
def report(build: str, out_dir: str | None) -> None:
    """Write a build's gate report as a standalone HTML file (everything inline)."""
    from pathlib import Path

    from eval_pipeline.report.html import render_html
    from eval_pipeline.report.stored import GateReportNotFoundError, load_gate_report

    home = current_home().ensure()
    try:
        data = load_gate_report(home, build)
    except GateReportNotFoundError as exc:
        raise InputError(str(exc)) from exc
    folder = Path(out_dir) if out_dir else home.root / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{build}.html"
    target.write_text(render_html(data, build), encoding="utf-8")
    click.echo(str(target))


COMMANDS = [report]
