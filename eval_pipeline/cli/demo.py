"""CLI: ``demo`` (the end-to-end story on the embedded default) and ``ui`` (the Dagster UI)."""

import os
import signal
import sys
import time

import click

from eval_pipeline.home import current_home


def _defect_table(result: object) -> str:
    from eval_pipeline.defs.demo import DemoResult

    assert isinstance(result, DemoResult)
    lines = ["| build | targets | gate | release | failing |", "|---|---|---|---|---|"]
    for entry in result.builds:
        outcome = result.outcomes[entry.build]
        lines.append(
            f"| {entry.build} | {entry.target_metric or '-'} | {outcome['verdict']} | "
            f"{outcome['release']} | {', '.join(outcome['failing']) or '-'} |"
        )
    return "\n".join(lines)


@click.command("demo")
@click.option("--no-defects", is_flag=True, help="Only the baseline and the improved candidate.")
def demo(no_defects: bool) -> None:
    """Evaluate the sample agent's builds end to end and print the gate report.

    Runs in-process on the embedded default (SQLite Dagster instance and Parquet store under
    EVAL_PIPELINE_HOME); afterwards `eval-pipeline ui` shows the same assets and checks.
    """
    from eval_pipeline.defects.story import sample_agent_builds
    from eval_pipeline.defs.demo import run_demo
    from eval_pipeline.evaluation.stages import decide_gate, load_stage
    from eval_pipeline.gate.reports import render_text

    home = current_home().ensure()
    click.echo(f"eval-pipeline home: {home.root}", err=True)
    started = time.perf_counter()
    result = run_demo(
        home, include_defects=not no_defects, progress=lambda line: click.echo(line, err=True)
    )
    click.echo(f"all builds evaluated in {time.perf_counter() - started:.1f} s", err=True)
    candidate = sample_agent_builds()[1].build
    outcome = result.outcomes[candidate]
    click.echo(f"== gate: {candidate} vs baseline {result.baseline} ==")
    if outcome["report"] is None:
        click.echo(f"not gated; failing checks: {', '.join(outcome['failing'])}")
    else:
        # The gate is seeded: re-deciding from the stored scores reproduces the asset's report.
        click.echo(render_text(decide_gate(load_stage(home, candidate)).report))
    click.echo("")
    click.echo("== every build of the story ==")
    click.echo(_defect_table(result))


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
