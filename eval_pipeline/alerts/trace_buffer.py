"""The spans of traces a plane has seen but not judged yet, in the SQL state database.

A plane's workers acknowledge a span as soon as its span detectors ran and it is buffered
here, so a worker that dies loses nothing it acknowledged; the trace detectors read the whole
trace from here once its completion is due, whichever worker saw which span. Judged traces are
forgotten; spans of traces whose root never came are dropped after ``retention_s``.
"""

import time
from collections.abc import Sequence

from sqlalchemy import Column, Engine, Float, Index, LargeBinary, String, Table, delete, select

from eval_pipeline.statedb import METADATA, engine_for, insert_new
from eval_pipeline.stream.events import SpanEvent, decode, span_payloads
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


class TraceBuffer:
    """The buffered spans of one plane (``plane``: the consumer's name)."""

    def __init__(self, state_url: str, plane: str, retention_s: float = 3600.0) -> None:
        self.engine: Engine = engine_for(state_url)
        self.plane = plane
        self.retention_s = retention_s

    def add(self, events: Sequence[SpanEvent]) -> None:
        """Buffer spans (a span buffered before is kept once)."""
        if not events:
            return
        now = time.time()
        rows = [
            {
                "plane": self.plane,
                "trace_id": e.span.trace_id,
                "span_id": e.span.span_id,
                "received_at": now,
                "payload": payload,
            }
            for e, payload in zip(events, span_payloads(events), strict=True)
        ]
        with self.engine.begin() as connection:
            connection.execute(insert_new(connection, BUFFER), rows)

    def spans(self, trace_id: str) -> list[Span]:
        """The buffered spans of a trace."""
        query = select(BUFFER.c.payload).where(
            BUFFER.c.plane == self.plane, BUFFER.c.trace_id == trace_id
        )
        with self.engine.connect() as connection:
            payloads = [payload for (payload,) in connection.execute(query)]
        return [e.span for e in decode(payloads) if isinstance(e, SpanEvent)]

    def forget(self, trace_id: str) -> None:
        """Drop a judged trace's spans, and any span older than ``retention_s``."""
        with self.engine.begin() as connection:
            connection.execute(
                delete(BUFFER).where(BUFFER.c.plane == self.plane, BUFFER.c.trace_id == trace_id)
            )
            connection.execute(
                delete(BUFFER).where(
                    BUFFER.c.plane == self.plane,
                    BUFFER.c.received_at < time.time() - self.retention_s,
                )
            )
