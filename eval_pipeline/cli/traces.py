"""CLI: `traces` commands (see the package docstring for exit codes).

``traces list [--build B] [--since T] [--errors] [--tool NAME] --format json`` prints one
object per run (**contract**: trace_id, build, item_id, run_index, root_agent, tool_calls,
handoffs, final_answer, complete, dialect; and start_time, duration_s, input_tokens,
output_tokens, error), oldest first; the filters keep runs started at or after T, runs with
an error span, runs that called the tool;
``traces show TRACE_ID [--build B] [--format text|json]`` prints the run and its span tree: by
default as read in the build holding its root (with spans of it that arrived first and were
stored under a default build); ``stored_under`` names every build holding spans of the trace,
and ``--build`` shows what one of them holds. The run's scores follow (``scores``: metric, value,
status, and the judge calls that made each, ``<judge trace id>/<span id>``; ``traces show`` of
that judge trace shows the calls: model, tokens, prompt and reply as stored, redacted). Judge
traces sit in judge partitions (``judge:<build>``, ``judges.judge_trace``), which ``traces list``
leaves out unless ``--build`` names one. ``traces compact`` merges small parts and
``traces clean`` deletes parts a failure left unrecorded (``traces.store.maintenance``).
"""

import click

from eval_pipeline.cli.alerts import parse_since
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_table
from eval_pipeline.home import current_home
from eval_pipeline.judges.call_refs import split_call
from eval_pipeline.judges.judge_trace import is_judge_build
from eval_pipeline.traces.runs.assemble import assemble_run
from eval_pipeline.traces.runs.render import render_text, run_row, run_tree
from eval_pipeline.traces.store.maintenance import clean, compact
from eval_pipeline.traces.store.trace_store import TraceStore


@click.group("traces")
def traces() -> None:
    """List and show stored agent runs."""


@traces.command("list")
@click.option("--build", default=None, help="Only this build (default: every build).")
@click.option("--since", default=None, help="Only runs started at or after this time (UTC).")
@click.option("--errors", "errors_only", is_flag=True, help="Only runs with an error span.")
@click.option("--tool", default=None, help="Only runs that called this tool.")
@format_option()
def list_runs(
    build: str | None, since: str | None, errors_only: bool, tool: str | None, fmt: str
) -> None:
    """One row per stored run, oldest first: when, how long, tokens, tools, first error."""
    start = parse_since(since)
    store = TraceStore(current_home().store)
    builds = store.builds()
    if build is not None:
        if build not in builds:
            raise InputError(
                f"--build {build}: no traces stored for this build "
                f"(known: {', '.join(builds) or 'none'})"
            )
        builds = [build]
    else:
        builds = [name for name in builds if not is_judge_build(name)]
    runs = sorted(
        ((name, run) for name in builds for run in store.runs(name)),
        key=lambda pair: (pair[1].start_time_unix_nano, pair[1].trace_id),
    )
    rows = []
    for name, run in runs:
        if start is not None and run.start_time_unix_nano < start.timestamp() * 1e9:
            continue
        if tool is not None and tool not in run.tool_names:
            continue
        row = run_row(run, name)
        if not errors_only or row["error"] is not None:
            rows.append(row)
    if fmt == "json":
        echo_json(rows)
        return
    print_table(
        (
            "trace",
            "build",
            "item",
            "run",
            "start",
            "duration",
            "tokens",
            "root agent",
            "tools",
            "error",
            "complete",
        ),
        (
            (
                r["trace_id"],
                r["build"],
                r["item_id"],
                r["run_index"],
                r["start_time"],
                f"{r['duration_s']:.3f}s",
                f"{r['input_tokens']}/{r['output_tokens']}",
                r["root_agent"],
                r["tool_calls"],
                r["error"],
                r["complete"],
            )
            for r in rows
        ),
        caption=f"{len(rows)} run(s)",
    )


@traces.command("show")
@click.argument("trace_id")
@click.option("--build", default=None, help="Only the spans stored under this build.")
@format_option()
def show(trace_id: str, build: str | None, fmt: str) -> None:
    """Show one run as a span tree."""
    store = TraceStore(current_home().store)
    holders = store.trace_builds(trace_id)
    if not holders:
        raise InputError(f"trace {trace_id}: not in the trace store")
    if build is not None and build not in holders:
        raise InputError(
            f"--build {build}: trace {trace_id} is not stored under it "
            f"(stored under: {', '.join(sorted(holders))})"
        )
    found = store.find_trace(trace_id, build=build)
    assert found is not None  # the ledger names it
    shown, spans = found
    document = {
        **run_tree(assemble_run(trace_id.lower(), spans), shown),
        "stored_under": {
            name: ("root" if root else "spans") for name, root in sorted(holders.items())
        },
        "scores": _scores(trace_id.lower(), shown),
    }
    if fmt == "json":
        echo_json(document)
        return
    click.echo(render_text(document))
    for score in document["scores"]:
        value = score["value"] if score["status"] == "scored" else score["status"]
        made = ", ".join(score["judge_calls"]) or "no judge call"
        click.echo(f"score {score['metric_id']}={value}  judge calls: {made}")
    for judge_trace in sorted(
        {split_call(c)[0] for s in document["scores"] for c in s["judge_calls"]}
    ):
        click.echo(f"judge calls shown by: eval-pipeline traces show {judge_trace}")
    if len(holders) > 1:
        listed = ", ".join(f"{name} ({kind})" for name, kind in document["stored_under"].items())
        click.echo(f"stored under {len(holders)} builds: {listed}; --build B shows one")


def _scores(trace_id: str, build: str) -> list[dict[str, object]]:
    """The scores of the run in ``build``, each with the judge calls that made it."""
    from eval_pipeline.scoring.store import ScoreStore

    if is_judge_build(build):
        return []
    return [
        {
            "metric_id": s.metric_id,
            "value": s.value,
            "status": s.status,
            "reason": s.reason,
            "judge_calls": list(s.judge_calls),
        }
        for s in ScoreStore(current_home().store).read(build)
        if (s.trace_id or "").lower() == trace_id
    ]


@traces.command("compact")
@format_option()
def compact_parts(fmt: str) -> None:
    """Merge each build-day's small parts into one (reads get faster; nothing changes)."""
    replaced = compact(TraceStore(current_home().store))
    if fmt == "json":
        echo_json({"compacted": replaced})
    else:
        click.echo(f"{replaced} small part(s) compacted")


@traces.command("clean")
@click.option(
    "--min-age",
    "min_age",
    type=float,
    default=600.0,
    show_default=True,
    help="Seconds an unrecorded part must be old (writers on other hosts may be mid-write).",
)
@format_option()
def clean_parts(min_age: float, fmt: str) -> None:
    """Delete parts (and temporary parts) a failure left unrecorded in the ledger."""
    removed = clean(TraceStore(current_home().store), min_age_seconds=min_age)
    if fmt == "json":
        echo_json({"removed": removed})
    else:
        click.echo(f"{removed} orphan part(s) removed")


COMMANDS: list[click.Command] = [traces]
