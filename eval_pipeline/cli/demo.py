"""CLI: ``demo`` (the end-to-end story on the embedded default) and ``ui`` (the Dagster UI)."""

import os
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

import click

from eval_pipeline.cli.output import echo_json, format_option, print_table, progress, quiet_option
from eval_pipeline.home import current_home

if TYPE_CHECKING:
    from eval_pipeline.defs.demo import DemoResult


def _print_builds(result: "DemoResult") -> None:
    rows = []
    for entry in result.builds:
        outcome = result.outcomes[entry.build]
        rows.append(
            (
                entry.build,
                entry.target_metric,
                outcome["verdict"],
                outcome["release"],
                outcome["failing"],
            )
        )
    print_table(("build", "targets", "gate", "release", "failing"), rows)


def _document(result: "DemoResult", candidate: str, report: dict[str, Any] | None) -> dict:
    """The ``demo --format json`` document: each build's outcome and the candidate's gate."""
    return {
        "home": str(current_home().root),
        "baseline": result.baseline,
        "candidate": candidate,
        "gate": report,
        "builds": [
            {
                "build": entry.build,
                "target_metric": entry.target_metric,
                **{k: v for k, v in result.outcomes[entry.build].items() if k != "report"},
            }
            for entry in result.builds
        ],
    }


@click.command("demo")
@click.option("--no-defects", is_flag=True, help="Only the baseline and the improved candidate.")
@click.option(
    "--loop",
    is_flag=True,
    help="Only the production feedback loop (serve, feedback, review, gate).",
)
@click.option("--alert-webhook", default=None, help="With --loop: serve POSTs each alert here.")
@format_option()
@quiet_option
def demo(no_defects: bool, loop: bool, alert_webhook: str | None, fmt: str, quiet: bool) -> None:
    """Evaluate the sample agent's builds end to end and print the gate report.

    Runs in-process on the embedded default (SQLite Dagster instance and Parquet store under
    EVAL_PIPELINE_HOME); afterwards `eval-pipeline ui` shows the same assets and checks.
    """
    from eval_pipeline.defects.story import sample_agent_builds
    from eval_pipeline.defs.demo import run_demo
    from eval_pipeline.evaluation.stages import decide_gate, load_stage
    from eval_pipeline.gate.reports import render_text

    home = current_home().ensure()
    if loop:
        from eval_pipeline.cli.demo_loop import run_loop

        run_loop(home, click.echo, webhook=alert_webhook)
        return
    started = time.perf_counter()
    with progress("demo", quiet=quiet) as tracker:
        tracker.say(f"eval-pipeline home: {home.root}")
        result = run_demo(
            home,
            include_defects=not no_defects,
            progress=tracker.say,
            advance=tracker.advance,
        )
        tracker.say(f"all builds evaluated in {time.perf_counter() - started:.1f} s")
    candidate = sample_agent_builds()[1].build
    outcome = result.outcomes[candidate]
    # The gate is seeded: re-deciding from the stored scores reproduces the asset's report.
    gate = None if outcome["report"] is None else decide_gate(load_stage(home, candidate))
    if fmt == "json":
        echo_json(_document(result, candidate, None if gate is None else gate.to_json()))
        return
    click.echo(f"== gate: {candidate} vs baseline {result.baseline} ==")
    if gate is None:
        click.echo(f"not gated; failing checks: {', '.join(outcome['failing'])}")
    else:
        click.echo(render_text(gate.report))
    click.echo("")
    click.echo("== every build of the story ==")
    _print_builds(result)


@click.command("ui")
@click.option("--host", default="127.0.0.1", show_default=True, help="Bind address.")
@click.option("--port", default=3000, show_default=True)
def ui(host: str, port: int) -> None:
    """Serve the Dagster UI (and daemon: sensor, schedule) for the home.

    Loopback by default: the UI has no authentication, so binding elsewhere is a choice.
    """
    from eval_pipeline.defs.launch import prepare_dagster_home

    home = current_home().ensure()
    os.environ["DAGSTER_HOME"] = str(prepare_dagster_home(home))
    os.environ["EVAL_PIPELINE_HOME"] = str(home.root)
    # `dagster dev` copies an ignored SIGINT onto SIGTERM; restore the default first.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    dagster = os.path.join(os.path.dirname(sys.executable), "dagster")
    os.execv(
        dagster,
        [dagster, "dev", "-h", host, "-p", str(port), "-m", "eval_pipeline.definitions"],
    )


COMMANDS: list[click.Command] = [demo, ui]
