"""Runs (or spans) -> sessions, whatever order the turns and their spans arrived in.

Spans are grouped into runs by trace id (``runs.assemble``: duplicates are kept once, a run is
rebuilt from whatever of its spans are present), runs into sessions by conversation id, and a
session's turns are ordered by start time (then trace id), so a late turn takes its place by
when it happened, not when it arrived. A run given twice (the same trace read from two
sources) is one turn: the copy with more spans is kept. Runs without a conversation id belong
to no session. The end rule is ``end``'s: the marker, else the idle timeout at ``now``.
"""

from collections.abc import Iterable
from datetime import datetime

from eval_pipeline.traces.model import AgentRun, Span
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.sessions.end import (
    DEFAULT_IDLE_TIMEOUT_S,
    check_idle_timeout,
    idle_end,
    marked_end,
)
from eval_pipeline.traces.sessions.model import Session, Turn

Clock = datetime | int | None
"""``now``: an aware datetime, Unix nanoseconds, or None (then only the marker ends)."""


def _nanos(now: Clock) -> int | None:
    if now is None or isinstance(now, int):
        return now
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware (UTC)")
    return int(now.timestamp() * 1e9)


def assemble_session(
    session_id: str,
    runs: Iterable[AgentRun],
    *,
    build: str | None = None,
    now: Clock = None,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
) -> Session:
    """The session of ``runs`` (all of conversation ``session_id``), ended or not at ``now``."""
    timeout = check_idle_timeout(idle_timeout_s)
    by_trace: dict[str, AgentRun] = {}
    for run in runs:
        kept = by_trace.get(run.trace_id)
        if kept is None or len(run.spans) > len(kept.spans):
            by_trace[run.trace_id] = run
    ordered = sorted(by_trace.values(), key=lambda r: (r.start_time_unix_nano, r.trace_id))
    turns = tuple(Turn(index, run) for index, run in enumerate(ordered, start=1))
    scope = (
        build
        if build is not None
        else next((r.eval_context.build_id for r in ordered if r.eval_context.build_id), None)
    )
    session = Session(session_id, scope, turns)
    end = marked_end(span for run in ordered for span in run.spans)
    if end is None:
        end = idle_end(session.last_activity_unix_nano, _nanos(now), timeout)
    if end is None:
        return session
    return Session(session_id, scope, turns, True, end.reason, end.detail, end.at_unix_nano)


def sessions_from_runs(
    runs: Iterable[AgentRun],
    *,
    build: str | None = None,
    now: Clock = None,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
) -> list[Session]:
    """One session per conversation id among ``runs``, oldest first (then by id)."""
    groups: dict[str, list[AgentRun]] = {}
    for run in runs:
        if run.conversation_id:
            groups.setdefault(run.conversation_id, []).append(run)
    sessions = [
        assemble_session(sid, members, build=build, now=now, idle_timeout_s=idle_timeout_s)
        for sid, members in groups.items()
    ]
    return sorted(sessions, key=lambda s: (s.start_time_unix_nano, s.session_id))


def assemble_sessions(
    spans: Iterable[Span],
    *,
    build: str | None = None,
    now: Clock = None,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
) -> list[Session]:
    """``sessions_from_runs`` of the runs the spans make (any order, duplicates once)."""
    return sessions_from_runs(
        assemble_runs(spans), build=build, now=now, idle_timeout_s=idle_timeout_s
    )
