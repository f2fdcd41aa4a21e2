"""The spans of traces a plane has seen but not judged yet, in the SQL state database.

A plane's workers acknowledge a span as soon as its span detectors ran and it is buffered
here, so a worker that dies loses nothing it acknowledged; the trace detectors read the whole
trace from here once its completion is due, whichever worker saw which span. Judged traces are
forgotten; spans of traces whose root never came are dropped after ``retention_s`` (swept
every ``sweep_s``).

Each buffer also keeps the spans its worker decoded on arrival (at most ``cached_spans``, the
oldest traces dropped first), so judging a trace decodes only the spans other workers
buffered: decoding was the largest cost of a judged trace.
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

from eval_pipeline.realtime.stream.decoding import decode
from eval_pipeline.realtime.stream.events import SpanEvent
from eval_pipeline.realtime.stream.protocol import Delivery
from eval_pipeline.statedb import METADATA, engine_for, insert_tuples
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
_COLUMNS = ("plane", "trace_id", "span_id", "received_at", "payload")


class TraceBuffer:
    """The buffered spans of one plane (``plane``: the consumer's name)."""

    def __init__(
        self,
        state_url: str,
        plane: str,
        retention_s: float = 3600.0,
        cached_spans: int = 50_000,
        sweep_s: float = 60.0,
    ) -> None:
        self.engine: Engine = engine_for(state_url)
        self.plane = plane
        self.retention_s = retention_s
        self.sweep_s = sweep_s
        self._next_sweep = 0.0
        self.cached_spans = cached_spans
        self._decoded: dict[str, dict[str, Span]] = {}
        """Trace id -> span id -> the span as this worker decoded it, oldest trace first."""
        self._cached = 0

    def add(self, deliveries: Sequence[Delivery], connection: Connection) -> None:
        """Buffer delivered span events, as published (a span buffered before is kept once).

        In the caller's transaction (the worker stores the spans' alerts in the same one).
        """
        now = time.time()
        rows = []
        for delivery in deliveries:
            if isinstance(delivery.event, SpanEvent):
                span = delivery.event.span
                rows.append((self.plane, span.trace_id, span.span_id, now, delivery.payload))
                self._remember(span)
        insert_tuples(connection, BUFFER, _COLUMNS, rows, skip_existing=True)

    def _remember(self, span: Span) -> None:
        trace = self._decoded.setdefault(span.trace_id, {})
        if span.span_id not in trace:
            trace[span.span_id] = span
            self._cached += 1
        while self._cached > self.cached_spans and self._decoded:
            oldest = next(iter(self._decoded))
            self._cached -= len(self._decoded.pop(oldest))

    def spans(self, trace_ids: Iterable[str]) -> dict[str, list[Span]]:
        """The buffered spans of each of these traces (decoding only those not seen here)."""
        wanted = sorted(set(trace_ids))
        keys: list[tuple[str, str]] = []  # in the buffer's order
        with self.engine.connect() as connection:
            for start in range(0, len(wanted), _CHUNK):
                query = select(BUFFER.c.trace_id, BUFFER.c.span_id).where(
                    BUFFER.c.plane == self.plane,
                    BUFFER.c.trace_id.in_(wanted[start : start + _CHUNK]),
                )
                keys += connection.execute(query).tuples()
            # Payloads only of the spans this worker did not decode (others' spans).
            cache = self._decoded
            missing = sorted({t for t, s in keys if s not in cache.get(t, ())})
            payloads: dict[tuple[str, str], bytes] = {}
            for start in range(0, len(missing), _CHUNK):
                rows = select(BUFFER.c.trace_id, BUFFER.c.span_id, BUFFER.c.payload).where(
                    BUFFER.c.plane == self.plane,
                    BUFFER.c.trace_id.in_(missing[start : start + _CHUNK]),
                )
                for trace_id, span_id, payload in connection.execute(rows).tuples():
                    payloads[(trace_id, span_id)] = payload
        buffered: list[Span | bytes] = []  # bytes: still to decode
        for trace_id, span_id in keys:
            entry = cache.get(trace_id, {}).get(span_id) or payloads.get((trace_id, span_id))
            if entry is not None:  # None: forgotten by another worker in between
                buffered.append(entry)
        decoded = iter(decode([entry for entry in buffered if isinstance(entry, bytes)]))
        found: dict[str, list[Span]] = {}
        for entry in buffered:
            if isinstance(entry, bytes):
                event = next(decoded)
                if not isinstance(event, SpanEvent):
                    continue
                entry = event.span
            found.setdefault(entry.trace_id, []).append(entry)
        return found

    def forget(self, trace_ids: Iterable[str], connection: Connection) -> None:
        """Drop judged traces' spans (caller's transaction).

        Also drops spans older than ``retention_s``, at most every ``sweep_s``: a worker
        judges a few hundred traces at a time, and the sweep was a query of each.
        """
        wanted = sorted(set(trace_ids))
        for trace_id in wanted:
            self._cached -= len(self._decoded.pop(trace_id, {}))
        for start in range(0, len(wanted), _CHUNK):
            connection.execute(
                delete(BUFFER).where(
                    BUFFER.c.plane == self.plane,
                    BUFFER.c.trace_id.in_(wanted[start : start + _CHUNK]),
                )
            )
        if time.monotonic() < self._next_sweep:
            return
        self._next_sweep = time.monotonic() + self.sweep_s
        connection.execute(
            delete(BUFFER).where(
                BUFFER.c.plane == self.plane,
                BUFFER.c.received_at < time.time() - self.retention_s,
            )
        )
