"""Live conversations the plane is watching, until they end, in the SQL state database.

When the worker judges a completed trace that belongs to a conversation (its run has a
conversation id), it records the turn here (``observe``, in the worker's transaction): the
trace, its root span, the user's input, when it started and ended, and the session end marker
if a span carries one (``traces.sessions.end``). ``ended`` returns the sessions that are over,
by the marker or by the idle timeout past their latest span end at the clock ``now`` (Unix
nanoseconds: span times against this host's clock), rebuilt as ``Session`` objects holding
just those turn fields; the worker runs the session detectors on them and ``forget``s them in
the transaction that stores their alerts. Every worker of a plane shares these rows, so a
session's turns may be judged by different workers; two workers finding the same session
ended raise the same alerts, which the alert ids deduplicate. A turn arriving after its
session was forgotten starts a new watch of that id.
"""

from collections.abc import Iterable, Sequence

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Index,
    String,
    Table,
    Text,
    and_,
    delete,
    func,
    or_,
    select,
    tuple_,
)

from eval_pipeline.statedb import METADATA, engine_for, insert_tuples
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.sessions.end import (
    DEFAULT_IDLE_TIMEOUT_S,
    EndReason,
    check_idle_timeout,
    marked_end,
)
from eval_pipeline.traces.sessions.model import Session, Turn

TURNS = Table(
    "detector_session_turns",
    METADATA,
    Column("plane", String(200), primary_key=True),
    Column("build", String(200), primary_key=True),
    Column("session_id", String(512), primary_key=True),
    Column("trace_id", String(128), primary_key=True),
    Column("root_span_id", String(128)),
    Column("user_input", Text),
    Column("start_ns", BigInteger, nullable=False),
    Column("end_ns", BigInteger, nullable=False),
    Column("marker", Text),  # the turn's end marker text ("true" for a bare true), or NULL
    Column("marked_ns", BigInteger),
    Index("detector_session_turns_end", "plane", "end_ns"),
)
_COLUMNS = (
    "plane",
    "build",
    "session_id",
    "trace_id",
    "root_span_id",
    "user_input",
    "start_ns",
    "end_ns",
    "marker",
    "marked_ns",
)


def _marker(run: AgentRun) -> tuple[str | None, int | None]:
    """The run's earliest end marker as (text, span end), or (None, None)."""
    end = marked_end(run.spans)
    if end is None:
        return None, None
    return end.detail or "true", end.at_unix_nano


class SessionWatch:
    """The watched conversations of one plane (see the module docstring)."""

    def __init__(
        self, state_url: str, plane: str, idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S
    ) -> None:
        self.engine = engine_for(state_url)
        self.plane = plane
        self.idle_timeout_s = check_idle_timeout(idle_timeout_s)

    def observe(self, runs: Iterable[tuple[str, AgentRun]], connection: Connection) -> int:
        """Record the turns among ``(build, run)`` pairs (a turn seen before is kept once)."""
        rows = []
        for build, run in runs:
            if not run.conversation_id:
                continue
            marker, marked = _marker(run)
            rows.append(
                (
                    self.plane,
                    build,
                    run.conversation_id,
                    run.trace_id,
                    run.root_span_id,
                    run.user_input,
                    run.start_time_unix_nano,
                    max(run.end_time_unix_nano, run.start_time_unix_nano),
                    marker,
                    marked,
                )
            )
        insert_tuples(connection, TURNS, _COLUMNS, rows, skip_existing=True)
        return len(rows)

    def ended(self, now_ns: int, connection: Connection) -> list[Session]:
        """The watched sessions over at ``now_ns`` (marker, or idle past the timeout)."""
        cutoff = now_ns - int(self.idle_timeout_s * 1e9)
        keys = connection.execute(
            select(TURNS.c.build, TURNS.c.session_id)
            .where(TURNS.c.plane == self.plane)
            .group_by(TURNS.c.build, TURNS.c.session_id)
            .having(or_(func.max(TURNS.c.end_ns) <= cutoff, func.count(TURNS.c.marker) > 0))
        ).all()
        if not keys:
            return []
        rows = connection.execute(
            select(TURNS)
            .where(
                TURNS.c.plane == self.plane,
                tuple_(TURNS.c.build, TURNS.c.session_id).in_([tuple(k) for k in keys]),
            )
            .order_by(TURNS.c.build, TURNS.c.session_id, TURNS.c.start_ns, TURNS.c.trace_id)
        ).all()
        grouped: dict[tuple[str, str], list] = {}
        for row in rows:
            grouped.setdefault((row.build, row.session_id), []).append(row)
        return [self._session(build, sid, turns) for (build, sid), turns in grouped.items()]

    def _session(self, build: str, session_id: str, rows: Sequence) -> Session:
        turns = tuple(
            Turn(
                index,
                AgentRun(
                    trace_id=row.trace_id,
                    root_span_id=row.root_span_id,
                    spans=(),
                    user_input=row.user_input,
                    conversation_id=session_id,
                    start_time_unix_nano=row.start_ns,
                    end_time_unix_nano=row.end_ns,
                ),
            )
            for index, row in enumerate(rows, start=1)
        )
        marked = [row for row in rows if row.marker is not None]
        if marked:
            first = min(marked, key=lambda row: row.marked_ns or 0)
            detail = None if first.marker == "true" else first.marker
            return Session(
                session_id, build, turns, True, EndReason.MARKER, detail, first.marked_ns
            )
        last = max(row.end_ns for row in rows)
        at = last + int(self.idle_timeout_s * 1e9)
        return Session(session_id, build, turns, True, EndReason.IDLE, None, at)

    def forget(self, sessions: Iterable[Session], connection: Connection) -> None:
        """Drop the turns of sessions whose end has been judged (caller's transaction)."""
        for session in sessions:
            connection.execute(
                delete(TURNS).where(
                    and_(
                        TURNS.c.plane == self.plane,
                        TURNS.c.build == (session.build or ""),
                        TURNS.c.session_id == session.session_id,
                    )
                )
            )
