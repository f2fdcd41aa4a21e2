"""CLI: `traces` commands (see the package docstring for exit codes).

``traces list [--build B] --format json`` prints one object per run (**contract**: trace_id,
build, item_id, run_index, root_agent, tool_calls, handoffs, final_answer, complete, dialect);
``traces show TRACE_ID [--format text|json]`` prints the run and its span tree.
"""

import json

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home
from eval_pipeline.traces.runs.assemble import assemble_run
from eval_pipeline.traces.runs.render import render_text, run_row, run_tree
from eval_pipeline.traces.store.trace_store import TraceStore


@click.group("traces")
def traces() -> None:
    """List and show stored agent runs."""


@traces.command("list")
@click.option("--build", default=None, help="Only this build (default: every build).")
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="text")
def list_runs(build: str | None, fmt: str) -> None:
    """One row per stored run."""
    store = TraceStore(current_home().store)
    builds = store.builds()
    if build is not None:
        if build not in builds:
            raise InputError(
                f"--build {build}: no traces stored for this build "
                f"(known: {', '.join(builds) or 'none'})"
            )
        builds = [build]
    rows = [run_row(run, name) for name in builds for run in store.runs(name)]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        click.echo(
            f"{row['trace_id']}  {row['build']}  item={row['item_id']} run={row['run_index']}  "
            f"{row['root_agent']}  tools={','.join(row['tool_calls']) or '-'}  "
            f"complete={row['complete']}"
        )


@traces.command("show")
@click.argument("trace_id")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def show(trace_id: str, fmt: str) -> None:
    """Show one run as a span tree."""
    found = TraceStore(current_home().store).find_trace(trace_id)
    if found is None:
        raise InputError(f"trace {trace_id}: not in the trace store")
    build, spans = found
    document = run_tree(assemble_run(trace_id.lower(), spans), build)
    if fmt == "json":
        click.echo(json.dumps(document, indent=2, ensure_ascii=False, default=str))
    else:
        click.echo(render_text(document))


COMMANDS: list[click.Command] = [traces]
