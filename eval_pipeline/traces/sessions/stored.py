"""Sessions read from the trace store, by build and by day, through its read API.

A session's scope is one build: ``read_sessions(store, build)`` assembles the sessions of
every run the build holds (``TraceStore.read_spans``, which brings in spans of its traces that
arrived first under another build). With ``day`` (a partition name, ``YYYY-MM-DD``, as the
receiver files live traffic under the ``production`` build), only that day's parts are read:
a conversation that crossed midnight then shows the turns stored that day. ``find_session``
looks a session id up in every build (or one).
"""

from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.sessions.assemble import Clock, sessions_from_runs
from eval_pipeline.traces.sessions.end import DEFAULT_IDLE_TIMEOUT_S
from eval_pipeline.traces.sessions.model import Session
from eval_pipeline.traces.store.trace_store import TraceStore


def read_sessions(
    store: TraceStore,
    build: str,
    day: str | None = None,
    *,
    now: Clock = None,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
) -> list[Session]:
    """The sessions of ``build`` (one day's parts when ``day`` is given), oldest first."""
    runs = assemble_runs(store.read_spans(build, day))
    return sessions_from_runs(runs, build=build, now=now, idle_timeout_s=idle_timeout_s)


def find_session(
    store: TraceStore,
    session_id: str,
    build: str | None = None,
    *,
    now: Clock = None,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
) -> list[Session]:
    """The sessions with this id, one per build holding it (only ``build`` when given)."""
    builds = [build] if build is not None else store.builds()
    return [
        session
        for name in builds
        for session in read_sessions(store, name, now=now, idle_timeout_s=idle_timeout_s)
        if session.session_id == session_id
    ]
