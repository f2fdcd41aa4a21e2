"""The spans of traces a plane has seen but not judged yet, in the SQL state database.

A plane's workers acknowledge a span as soon as its span detectors ran and it is buffered
here, so a worker that dies loses nothing it acknowledged; the trace detectors read the whole
trace from here once its completion is due, whichever worker saw which span. Judged traces are
forgotten; spans of traces whose root never came are dropped after ``retention_s``.
"""

import time
from collections.abc import Iterable, Sequence

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Float,
    Index,
    LargeBinary,
    String,
    Table,
    delete,
    select,
)

from eval_pipeline.statedb import METADATA, engine_for, insert_new
from eval_pipeline.stream.events import SpanEvent, decode
from eval_pipeline.stream.protocol import Delivery
from eval_pipeline.traces.model import Span

BUFFER = Table(
    "detector_trace_spans",
    METADATA,
    Column("plane", String(200), primary_key=True),
    Column("trace_id", String(128), primary_key=True),
    Column("span_id", String(128), primary_key=True),
    Column("received_at", Float, nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Index("detector_trace_spans_age", "received_at"),
)
_CHUNK = 500


class TraceBuffer:
    """The buffered spans of one plane (``plane``: the consumer's name)."""

    def __init__(self, state_url: str, plane: str, retention_s: float = 3600.0) -> None:
        self.engine: Engine = engine_for(state_url)
        self.plane = plane
        self.retention_s = retention_s

    def add(self, deliveries: Sequence[Delivery], connection: Connection) -> None:
        """Buffer delivered span events, as published (a span buffered before is kept once).

        In the caller's transaction (the worker stores the spans' alerts in the same one).
        """
        now = time.time()
        rows = [
            {
                "plane": self.plane,
                "trace_id": d.event.span.trace_id,
                "span_id": d.event.span.span_id,
                "received_at": now,
                "payload": d.payload,
            }
            for d in deliveries
            if isinstance(d.event, SpanEvent)
        ]
        if rows:
            connection.execute(insert_new(connection, BUFFER), rows)

    def spans(self, trace_ids: Iterable[str]) -> dict[str, list[Span]]:
        """The buffered spans of each of these traces."""
        wanted = sorted(set(trace_ids))
        payloads: list[bytes] = []
        with self.engine.connect() as connection:
            for start in range(0, len(wanted), _CHUNK):
                query = select(BUFFER.c.payload).where(
                    BUFFER.c.plane == self.plane,
                    BUFFER.c.trace_id.in_(wanted[start : start + _CHUNK]),
                )
                payloads += [payload for (payload,) in connection.execute(query)]
        found: dict[str, list[Span]] = {}
        for event in decode(payloads):
            if isinstance(event, SpanEvent):
                found.setdefault(event.span.trace_id, []).append(event.span)
        return found

    def forget(self, trace_ids: Iterable[str], connection: Connection) -> None:
        """Drop judged traces' spans, and any older than ``retention_s`` (caller's transaction)."""
        wanted = sorted(set(trace_ids))
        for start in range(0, len(wanted), _CHUNK):
            connection.execute(
                delete(BUFFER).where(
                    BUFFER.c.plane == self.plane,
                    BUFFER.c.trace_id.in_(wanted[start : start + _CHUNK]),
                )
            )
        connection.execute(
            delete(BUFFER).where(
                BUFFER.c.plane == self.plane,
                BUFFER.c.received_at < time.time() - self.retention_s,
            )
        )
