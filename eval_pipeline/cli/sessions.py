"""CLI: ``sessions list`` and ``sessions show``: conversations as stored.

``sessions list [--build B] [--since T] [--idle-timeout-s S | --suite S] [--format text|json]``
prints one object per session (``traces.sessions.render.session_row``: session_id, build,
item_id, run_index, turns, start_time, last_activity, duration_s, input_tokens,
output_tokens, tool_calls, errors, ended, end_reason, end_detail, ended_at), oldest first;
``--since`` keeps sessions started at or after T. ``sessions show SESSION_ID [--build B]``
prints its turns: what the user said, the tool calls (arguments, results, errors), the errors
and what the agent answered, with times and tokens. A session is one conversation id within
one build; for one held by several builds, ``show`` shows the first and names them all
(``stored_under``). Whether a session has ended is judged at the current time with the idle
timeout (the option's, else the suite's ``sessions.idle_timeout_s``, else 30 minutes) unless a
turn carries the end marker (``traces.sessions.end``). An unknown id, build or suite exits 2,
naming it (package docstring: exit codes).
"""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import click

from eval_pipeline.cli.alerts import parse_since
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_table
from eval_pipeline.home import current_home
from eval_pipeline.traces.sessions.end import DEFAULT_IDLE_TIMEOUT_S
from eval_pipeline.traces.sessions.render import render_text, session_document, session_row
from eval_pipeline.traces.sessions.stored import find_session, read_sessions
from eval_pipeline.traces.store.trace_store import TraceStore

F = TypeVar("F", bound=Callable[..., Any])


def _idle_options(function: F) -> F:
    """``--idle-timeout-s S`` and ``--suite S`` (whose ``sessions.idle_timeout_s`` applies)."""
    function = click.option(
        "--suite",
        "suite_ref",
        default=None,
        help="Take the idle timeout from this suite (a name or YAML path).",
    )(function)
    return click.option(
        "--idle-timeout-s",
        "idle_timeout_s",
        type=click.FloatRange(min=0.0, min_open=True),
        default=None,
        help="Seconds without a turn after which a session without an end marker has ended "
        f"(default: the suite's, else {DEFAULT_IDLE_TIMEOUT_S:g}).",
    )(function)


def _idle_timeout(idle_timeout_s: float | None, suite_ref: str | None) -> float:
    """The idle timeout: the option's, else the suite's, else the default."""
    if idle_timeout_s is not None:
        return idle_timeout_s
    if suite_ref is None:
        return DEFAULT_IDLE_TIMEOUT_S
    from eval_pipeline.suites.config import load_suite
    from eval_pipeline.suites.errors import ConfigError
    from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite

    try:
        return load_suite(locate_suite(suite_ref)).sessions.idle_timeout_s
    except (SuiteNotFoundError, ConfigError) as exc:
        raise InputError(str(exc)) from exc


def _builds(store: TraceStore, build: str | None) -> list[str]:
    builds = store.builds()
    if build is None:
        return builds
    if build not in builds:
        raise InputError(
            f"--build {build}: no traces stored for this build "
            f"(known: {', '.join(builds) or 'none'})"
        )
    return [build]


@click.group("sessions")
def sessions() -> None:
    """List and show stored conversations (runs sharing a conversation id)."""


@sessions.command("list")
@click.option("--build", default=None, help="Only this build (default: every build).")
@click.option("--since", default=None, help="Only sessions started at or after this time (UTC).")
@_idle_options
@format_option()
def list_sessions(
    build: str | None,
    since: str | None,
    idle_timeout_s: float | None,
    suite_ref: str | None,
    fmt: str,
) -> None:
    """One row per stored session, oldest first: turns, duration, tokens, errors, end."""
    start = parse_since(since)
    idle = _idle_timeout(idle_timeout_s, suite_ref)
    store = TraceStore(current_home().store)
    now = datetime.now(tz=UTC)
    found = [
        session
        for name in _builds(store, build)
        for session in read_sessions(store, name, now=now, idle_timeout_s=idle)
        if start is None or session.start_time_unix_nano >= start.timestamp() * 1e9
    ]
    found.sort(key=lambda s: (s.start_time_unix_nano, s.session_id, s.build or ""))
    rows = [session_row(s) for s in found]
    if fmt == "json":
        echo_json(rows)
        return
    print_table(
        (
            "session",
            "build",
            "item",
            "turns",
            "start",
            "duration",
            "tokens",
            "tools",
            "errors",
            "ended",
        ),
        (
            (
                r["session_id"],
                r["build"],
                r["item_id"],
                r["turns"],
                r["start_time"],
                f"{r['duration_s']:.3f}s",
                f"{r['input_tokens']}/{r['output_tokens']}",
                r["tool_calls"],
                r["errors"],
                r["end_reason"] if r["ended"] else "open",
            )
            for r in rows
        ),
        caption=f"{len(rows)} session(s)",
    )


@sessions.command("show")
@click.argument("session_id")
@click.option("--build", default=None, help="Only the session as stored under this build.")
@_idle_options
@format_option()
def show(
    session_id: str,
    build: str | None,
    idle_timeout_s: float | None,
    suite_ref: str | None,
    fmt: str,
) -> None:
    """Show one session turn by turn: user input, tool calls, errors, answer."""
    idle = _idle_timeout(idle_timeout_s, suite_ref)
    store = TraceStore(current_home().store)
    _builds(store, build)
    found = find_session(store, session_id, build, now=datetime.now(tz=UTC), idle_timeout_s=idle)
    if not found:
        where = f"build {build}" if build is not None else "the trace store"
        raise InputError(f"session {session_id}: not in {where}")
    found.sort(key=lambda s: s.build or "")
    document = {**session_document(found[0]), "stored_under": [s.build for s in found]}
    if fmt == "json":
        echo_json(document)
        return
    click.echo(render_text(document))
    if len(found) > 1:
        listed = ", ".join(str(s.build) for s in found)
        click.echo(f"stored under {len(found)} builds: {listed}; --build B shows one")


COMMANDS: list[click.Command] = [sessions]
