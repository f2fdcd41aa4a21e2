"""What travels on the span stream: span events and trace-completed events, as bytes.

One message per stored span (``SpanEvent``) and one per root span that ended
(``TraceCompleted``). Both back ends (the embedded SQL log and NATS JetStream) carry the same
payloads under the same subjects and message ids, so a consumer cannot tell them apart:

- subjects ``<prefix>.spans.<build>.<day>`` and ``<prefix>.traces.<build>.<day>``, the build
  escaped to one subject token (``subject_token``);
- message ids ``<build>/<trace id>/<span id>`` and ``<build>/<trace id>/<root span id>/completed``:
  publishing the same rows again is deduplicated by id (JetStream's ``Nats-Msg-Id``, the log's
  unique key).

A span is carried as its store row (``span_table.Row``, ``ROW_FIELDS`` order) in JSON, messages
and events as objects, so it decodes back to the ``Span`` the store reads (``decode``; tuples
inside attributes come back as lists, as from the store). orjson writes it unless that could
change a value (it writes NaN and infinities as null and refuses integers beyond 64 bits, which
its parser would read back as floats): then the standard encoder writes it, NaN as ``NaN``,
and marks the object ``"exact": true`` so it is parsed back by the standard parser too.
A payload that is not such an event is a ``ValueError`` naming it.
"""

import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from eval_pipeline.traces.model import Message, Span, SpanLink
from eval_pipeline.traces.model import SpanEvent as RecordedEvent  # an OTel span event
from eval_pipeline.traces.span_factory import span_from_state
from eval_pipeline.traces.store.span_table import (
    PARENT_SPAN_ID,
    ROW_FIELDS,
    SPAN_ID,
    TRACE_ID,
    Row,
)

_new = object.__new__
_set = object.__setattr__
SPAN_KIND = "span"
TRACE_KIND = "trace_completed"
DEFAULT_PREFIX = "evalpipe"
END_TIME = ROW_FIELDS.index("end_time_unix_nano")
INPUT_MESSAGES = ROW_FIELDS.index("input_messages")
OUTPUT_MESSAGES = ROW_FIELDS.index("output_messages")
MAX_NAMED_SPANS = 10_000
"""A completion names at most this many spans (about 200 KB, well inside NATS's 1 MB)."""


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
    span_ids: tuple[str, ...] = ()
    """The spans published with the root (at most ``MAX_NAMED_SPANS``); spans published
    earlier are not named."""


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


def _dumps(value: dict[str, Any], nulls: int = 0) -> bytes:
    """``value`` as JSON that parses back to equal values; ``nulls``: the Nones it holds.

    orjson's text is exact when it holds no ``null`` but the known Nones' (a NaN or an
    infinity would be one more; so would the text "null" inside a string, which only costs
    the slower encoder) and orjson accepted every value.
    """
    try:
        text = orjson.dumps(value)
        if text.count(b"null") == nulls:
            return text
    except (TypeError, orjson.JSONEncodeError):
        pass  # integers beyond 64 bits, lone surrogates, non-string keys
    return _EXACT.encode({**value, "exact": True}).encode()


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    raise TypeError(f"cannot encode {type(value).__name__} on the span stream")


_EXACT = json.JSONEncoder(separators=(",", ":"), default=_plain)
"""NaN and infinities as ``NaN``/``Infinity``, big integers in full, surrogates escaped."""


def span_payload(row: Row, build: str, day: str) -> bytes:
    """The payload of one span event."""
    return _dumps({"kind": SPAN_KIND, "build": build, "day": day, "row": row}, _nulls(row))


def _nulls(row: Row) -> int:
    """The Nones of a row as orjson writes it: the row's own and its messages' unset fields."""
    count = row.count(None)
    for field in (INPUT_MESSAGES, OUTPUT_MESSAGES):
        messages = row[field]
        if type(messages) is not str:  # the fast path's output text counts as a string
            for message in messages:
                count += (message.name is None) + (message.finish_reason is None)
    return count


def encode_rows(
    prefix: str, rows: Sequence[Row], builds: Sequence[str], day: str
) -> list[OutgoingMessage]:
    """The messages for stored rows: one per span, then one per root span that ended.

    A completion names the spans published with its root (``TraceCompleted.span_ids``), so
    a worker can tell a trace whose spans are still in flight from one it has whole.
    """
    if len(rows) != len(builds):
        raise ValueError(f"{len(rows)} rows but {len(builds)} builds")
    messages = []
    roots: list[tuple[Row, str]] = []
    published: dict[tuple[str, str], list[str]] = {}
    for row, build in zip(rows, builds, strict=True):
        trace_id, span_id = row[TRACE_ID], row[SPAN_ID]
        messages.append(
            OutgoingMessage(
                span_subject(prefix, build, day),
                f"{build}/{trace_id}/{span_id}",
                span_payload(row, build, day),
                SPAN_KIND,
                build,
                day,
                trace_id,
            )
        )
        published.setdefault((build, trace_id), []).append(span_id)
        if row[PARENT_SPAN_ID] is None and row[END_TIME]:
            roots.append((row, build))
    return messages + [_completion(prefix, row, build, day, published) for row, build in roots]


def _completion(
    prefix: str, root: Row, build: str, day: str, published: dict[tuple[str, str], list[str]]
) -> OutgoingMessage:
    trace_id, span_id = root[TRACE_ID], root[SPAN_ID]
    event = {
        "kind": TRACE_KIND,
        "build": build,
        "day": day,
        "trace_id": trace_id,
        "root_span_id": span_id,
        "root_end_unix_nano": root[END_TIME],
        "span_ids": published[(build, trace_id)][:MAX_NAMED_SPANS],
    }
    return OutgoingMessage(
        trace_subject(prefix, build, day),
        f"{build}/{trace_id}/{span_id}/completed",
        orjson.dumps(event),
        TRACE_KIND,
        build,
        day,
        trace_id,
    )


def _messages(items: Any) -> tuple[Message, ...]:
    """``messages_from_json`` for freshly parsed items: their part dicts are owned already.

    Built the way ``span_from_state`` builds spans (one instance dictionary, no frozen
    ``__init__``): decoding messages was a third of a span's decode.
    """
    messages = []
    for item in items:
        message = _new(Message)
        _set(
            message,
            "__dict__",
            {
                "role": str(item["role"]),
                "parts": tuple(item.get("parts", ())),
                "name": item.get("name"),
                "finish_reason": item.get("finish_reason"),
            },
        )
        messages.append(message)
    return tuple(messages)


def _span(values: list[Any]) -> Span:
    if len(values) != len(ROW_FIELDS):
        raise ValueError(f"a span row has {len(ROW_FIELDS)} fields, got {len(values)}")
    state = dict(zip(ROW_FIELDS, values, strict=False))  # lengths checked above
    state["input_messages"] = _messages(state["input_messages"])
    outputs = state["output_messages"]
    state["output_messages"] = _messages(
        json.loads(outputs) if isinstance(outputs, str) else outputs
    )
    events = state["events"]
    state["events"] = (
        tuple(RecordedEvent(e["name"], e["time_unix_nano"], e["attributes"]) for e in events)
        if events
        else ()
    )
    links = state["links"]
    state["links"] = (
        tuple(
            SpanLink(k["trace_id"], k["span_id"], k["trace_state"], k["attributes"]) for k in links
        )
        if links
        else ()
    )
    return span_from_state(state)


def _load(payload: bytes) -> dict[str, Any]:
    """The event object of a payload (the standard parser for an ``exact`` one)."""
    try:
        value = orjson.loads(payload)
    except orjson.JSONDecodeError:
        value = None  # NaN or Infinity: only an exact payload holds them
    if value is None or (type(value) is dict and value.get("exact") is True):
        try:
            value = json.loads(payload)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"stream payload is not JSON: {payload[:80]!r}") from exc
    if type(value) is not dict:
        raise ValueError(f"stream payload is not an event object: {payload[:80]!r}")
    return value


def _event(payload: dict[str, Any]) -> StreamEvent:
    kind = payload["kind"]
    if kind == SPAN_KIND:
        return SpanEvent(payload["build"], payload["day"], _span(payload["row"]))
    if kind == TRACE_KIND:
        return TraceCompleted(
            payload["build"],
            payload["day"],
            payload["trace_id"],
            payload["root_span_id"],
            int(payload["root_end_unix_nano"]),
            tuple(payload.get("span_ids", ())),
        )
    raise ValueError(f"unknown stream event kind {kind!r}")


def decode(payloads: Sequence[bytes]) -> list[StreamEvent]:
    """The events of message payloads, in order; ``ValueError`` names one that is not."""
    events: list[StreamEvent] = []
    for payload in payloads:
        try:
            events.append(_event(_load(payload)))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"stream payload {payload[:80]!r}: {exc}") from exc
    return events
