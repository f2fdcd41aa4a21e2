"""What travels on the span stream: span events and trace-completed events, as bytes.

One message per stored span (``SpanEvent``) and one per root span that ended
(``TraceCompleted``). Both back ends (the embedded SQL log and NATS JetStream) carry the same
payloads under the same subjects and message ids, so a consumer cannot tell them apart:

- subjects ``<prefix>.spans.<build>.<day>`` and ``<prefix>.traces.<build>.<day>``, the build
  escaped to one subject token (``subject_token``);
- message ids ``<build>/<trace id>/<span id>`` and ``<build>/<trace id>/<root span id>/completed``:
  publishing the same rows again is deduplicated by id (JetStream's ``Nats-Msg-Id``, the log's
  unique key).

A span is carried as its span-store columns (``span_table.rows_table``: scalars, and JSON text
for structured fields), so it decodes back to an equal ``Span`` (``decode``).
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import pyarrow as pa

from eval_pipeline.traces.model import Span
from eval_pipeline.traces.store.span_table import (
    PARENT_SPAN_ID,
    ROW_FIELDS,
    SCHEMA,
    SPAN_ID,
    TRACE_ID,
    Row,
    from_table,
    rows_table,
    span_row,
)

SPAN_KIND = "span"
TRACE_KIND = "trace_completed"
DEFAULT_PREFIX = "evalpipe"
END_TIME = ROW_FIELDS.index("end_time_unix_nano")


class StreamUnavailable(RuntimeError):
    """The stream did not durably accept a publish (the receiver answers 503, never 200)."""


@dataclass(frozen=True)
class SpanEvent:
    """One stored (redacted) span of ``build``, stored on UTC ``day``."""

    build: str
    day: str
    span: Span


@dataclass(frozen=True)
class TraceCompleted:
    """The root span of ``trace_id`` ended: the trace may be judged after a quiet period."""

    build: str
    day: str
    trace_id: str
    root_span_id: str
    root_end_unix_nano: int


StreamEvent = SpanEvent | TraceCompleted


@dataclass(frozen=True)
class OutgoingMessage:
    """A message ready to publish: subject, deduplication id and payload."""

    subject: str
    msg_id: str
    payload: bytes
    kind: str
    build: str
    day: str
    trace_id: str


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def subject_token(value: str) -> str:
    """``value`` as one NATS subject token (``.``, ``*``, ``>``, spaces escaped as ``~XX``)."""
    return _UNSAFE.sub(lambda m: "".join(f"~{b:02X}" for b in m.group(0).encode()), value) or "~"


def span_subject(prefix: str, build: str, day: str) -> str:
    """The subject of the span events of ``build`` on ``day``."""
    return f"{prefix}.spans.{subject_token(build)}.{subject_token(day)}"


def trace_subject(prefix: str, build: str, day: str) -> str:
    """The subject of the trace-completed events of ``build`` on ``day``."""
    return f"{prefix}.traces.{subject_token(build)}.{subject_token(day)}"


def encode_rows(
    prefix: str, rows: Sequence[Row], builds: Sequence[str], day: str
) -> list[OutgoingMessage]:
    """The messages for stored rows: one per span, then one per root span that ended."""
    if len(rows) != len(builds):
        raise ValueError(f"{len(rows)} rows but {len(builds)} builds")
    if not rows:
        return []
    columns = rows_table(rows, builds, day).to_pylist()
    messages = []
    completed = []
    for row, build, column_values in zip(rows, builds, columns, strict=True):
        trace_id, span_id = row[TRACE_ID], row[SPAN_ID]
        messages.append(
            OutgoingMessage(
                span_subject(prefix, build, day),
                f"{build}/{trace_id}/{span_id}",
                orjson.dumps({"kind": SPAN_KIND, "span": column_values}),
                SPAN_KIND,
                build,
                day,
                trace_id,
            )
        )
        if row[PARENT_SPAN_ID] is None and row[END_TIME]:
            event = {
                "kind": TRACE_KIND,
                "build": build,
                "day": day,
                "trace_id": trace_id,
                "root_span_id": span_id,
                "root_end_unix_nano": row[END_TIME],
            }
            completed.append(
                OutgoingMessage(
                    trace_subject(prefix, build, day),
                    f"{build}/{trace_id}/{span_id}/completed",
                    orjson.dumps(event),
                    TRACE_KIND,
                    build,
                    day,
                    trace_id,
                )
            )
    return messages + completed


def span_payloads(events: Sequence[SpanEvent]) -> list[bytes]:
    """Span events back to their payloads (``decode`` reads them): for consumers that keep them."""
    if not events:
        return []
    rows = [span_row(e.span) for e in events]
    columns = rows_table(rows, [e.build for e in events], None).to_pylist()
    return [
        orjson.dumps({"kind": SPAN_KIND, "span": {**values, "day": event.day}})
        for values, event in zip(columns, events, strict=True)
    ]


def decode(payloads: Sequence[bytes]) -> list[StreamEvent]:
    """The events of message payloads, in order (span payloads decoded as one table)."""
    parsed: list[dict[str, Any]] = [orjson.loads(p) for p in payloads]
    span_columns = [p["span"] for p in parsed if p["kind"] == SPAN_KIND]
    spans = iter(from_table(pa.Table.from_pylist(span_columns, schema=SCHEMA)))
    events: list[StreamEvent] = []
    for payload in parsed:
        if payload["kind"] == SPAN_KIND:
            columns = payload["span"]
            events.append(SpanEvent(columns["build"], columns["day"], next(spans)))
        elif payload["kind"] == TRACE_KIND:
            events.append(
                TraceCompleted(
                    payload["build"],
                    payload["day"],
                    payload["trace_id"],
                    payload["root_span_id"],
                    int(payload["root_end_unix_nano"]),
                )
            )
        else:
            raise ValueError(f"unknown stream event kind {payload['kind']!r}")
    return events
