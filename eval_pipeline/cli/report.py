"""CLI: `report` (see the package docstring for exit codes).

``eval-pipeline report --build B [--out DIR] [--trace-url TEMPLATE]`` (**contract**, docs/DESIGN.md
section 9) writes the build's stored gate report as one standalone HTML file,
``DIR/<build>.html`` (default ``<home>/reports``), and prints its path: verdict, tables, plots,
evidence with trace pages, judge calibration and the NIST AI RMF section (``report.html``).
Trace links go to the report's own trace pages unless ``--trace-url`` or
``EVAL_PIPELINE_TRACE_URL`` gives a tracing UI's URL template (``report.trace_links``). A build
never gated in the home, or a template without ``{trace_id}``, is bad input (exit 2).
"""

from typing import TYPE_CHECKING

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import Home, current_home

if TYPE_CHECKING:
    from eval_pipeline.report.inputs import ReportInputs


def _inputs(home: Home, build: str) -> "ReportInputs":
    """The report's inputs: through the build's stage when it resolves (calibration too).

    A build gated from score files is not registered, and a registered build's suite may be
    gone since: its report is drawn from the stored gate report alone, without calibration.
    """
    from eval_pipeline.evaluation.stage import BuildNotRegisteredError, load_stage
    from eval_pipeline.report.inputs import gather_inputs
    from eval_pipeline.report.stored import load_gate_report
    from eval_pipeline.suites.config import SuiteError
    from eval_pipeline.suites.locate import SuiteNotFoundError

    load_gate_report(home, build)  # a build never gated is bad input before anything else
    try:
        stage = load_stage(home, build)
    except (BuildNotRegisteredError, SuiteNotFoundError, SuiteError):
        return gather_inputs(home, build)
    from eval_pipeline.defs.gate_assets import stage_report_inputs

    return stage_report_inputs(stage)


@click.command("report")
@click.option("--build", required=True, help="The gated build to report on.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, writable=True),
    default=None,
    help="Folder to write <build>.html into (default: <home>/reports).",
)
@click.option(
    "--trace-url",
    default=None,
    metavar="TEMPLATE",
    help="Link trace ids to a tracing UI: a URL with {trace_id} (and optionally {span_id}, "
    "{build}); default: $EVAL_PIPELINE_TRACE_URL, else the report's own trace pages.",
)
def report(build: str, out_dir: str | None, trace_url: str | None) -> None:
    """Write a build's gate report as a standalone HTML file (everything inline)."""
    from pathlib import Path

    from eval_pipeline.report.html import render_html
    from eval_pipeline.report.stored import GateReportNotFoundError, build_file_name
    from eval_pipeline.report.trace_links import TraceUrlTemplateError, trace_links

    home = current_home().ensure()
    try:
        links = trace_links(trace_url)
        inputs = _inputs(home, build)
    except (GateReportNotFoundError, TraceUrlTemplateError) as exc:
        raise InputError(str(exc)) from exc
    folder = Path(out_dir) if out_dir else home.root / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / build_file_name(build, ".html")
    target.write_text(render_html(inputs, links), encoding="utf-8")
    click.echo(str(target))


COMMANDS = [report]
