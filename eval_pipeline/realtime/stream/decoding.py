"""Span stream payloads -> events: the ``Span`` the store reads, or a trace completion.

The inverse of ``encoding``: an ``exact`` payload (or one orjson cannot parse: NaN, infinities)
is read by the standard parser. Spans and messages are built by their constructors. A payload
that is not such an event is a ``ValueError`` naming it.
"""

import json
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import orjson

from eval_pipeline.realtime.stream.events import (
    SPAN_KIND,
    TRACE_KIND,
    SpanEvent,
    StreamEvent,
    TraceCompleted,
)
from eval_pipeline.traces.model import Message, Span, SpanLink
from eval_pipeline.traces.model import SpanEvent as RecordedEvent  # an OTel span event
from eval_pipeline.traces.store.span_table import ROW_FIELDS


def _messages(items: Any) -> tuple[Message, ...]:
    """``messages_from_json`` for freshly parsed items: their part dicts are owned already."""
    return tuple(
        Message(
            role=str(item["role"]),
            parts=tuple(item.get("parts", ())),
            name=item.get("name"),
            finish_reason=item.get("finish_reason"),
        )
        for item in items
    )


_INPUTS, _OUTPUTS, _EVENTS, _LINKS = map(
    ROW_FIELDS.index, ("input_messages", "output_messages", "events", "links")
)
_SPAN_ORDER = tuple(ROW_FIELDS.index(f.name) for f in fields(Span) if f.init)
"""Where each of ``Span``'s constructor fields is in a row: a span is built by position (by
keyword, its 32 fields cost more to bind than the rest of the decoding)."""


def _span(values: list[Any]) -> Span:
    if len(values) != len(ROW_FIELDS):
        raise ValueError(f"a span row has {len(ROW_FIELDS)} fields, got {len(values)}")
    values[_INPUTS] = _messages(values[_INPUTS])
    outputs = values[_OUTPUTS]
    values[_OUTPUTS] = _messages(json.loads(outputs) if isinstance(outputs, str) else outputs)
    events = values[_EVENTS]
    values[_EVENTS] = (
        tuple(RecordedEvent(e["name"], e["time_unix_nano"], e["attributes"]) for e in events)
        if events
        else ()
    )
    links = values[_LINKS]
    values[_LINKS] = (
        tuple(
            SpanLink(k["trace_id"], k["span_id"], k["trace_state"], k["attributes"]) for k in links
        )
        if links
        else ()
    )
    return Span(*map(values.__getitem__, _SPAN_ORDER))


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
