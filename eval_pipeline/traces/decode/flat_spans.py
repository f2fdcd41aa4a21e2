"""Flat span lists (one JSON object per span, attributes as a plain mapping) -> raw spans.

The shape many tools export (and ``*.spans_flat.json`` in the shared OTel samples): ``name``,
``trace_id``, ``span_id``, ``parent_span_id``, ``kind`` and ``status.code`` by name, times in
Unix nanoseconds, ``scope``, ``attributes`` and ``events``. Bad spans are rejected one by one.
"""

from typing import Any

from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult, FieldError
from eval_pipeline.traces.model import Span, SpanEvent, StatusCode

_HEX = frozenset("0123456789abcdef")
_STATUS = {"UNSET": StatusCode.UNSET, "OK": StatusCode.OK, "ERROR": StatusCode.ERROR}


def is_flat(document: Any) -> bool:
    """True for a list of span objects with ``trace_id`` and ``span_id``."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(s, dict) and "span_id" in s and "trace_id" in s for s in document)
    )


def _id(value: Any, size: int, name: str, required: bool) -> str | None:
    if value in (None, "") and not required:
        return None
    if not isinstance(value, str) or len(value) != size or not _HEX.issuperset(value.lower()):
        raise FieldError(name, f"must be {size} hex characters, got {value!r:.40}")
    return value.lower()


def _int(value: Any, name: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise FieldError(name, f"must be an integer, got {value!r:.40}")
    try:
        return int(value)
    except ValueError:
        raise FieldError(name, f"must be an integer, got {value!r:.40}") from None


def _span(raw: dict[str, Any], limit: int) -> Span:
    attributes = raw.get("attributes") or {}
    if not isinstance(attributes, dict):
        raise FieldError("attributes", "must be an object")
    for key, value in attributes.items():
        if isinstance(value, str) and len(value) > limit:
            raise FieldError(f"attributes[{key}]", f"value of {len(value)} chars exceeds {limit}")
    status = raw.get("status") or {}
    if not isinstance(status, dict):
        raise FieldError("status", "must be an object")
    code = str(status.get("code") or "UNSET").upper().removeprefix("STATUS_CODE_")
    if code not in _STATUS:
        raise FieldError("status.code", f"unknown status {code!r}")
    events = []
    for index, event in enumerate(raw.get("events") or []):
        if not isinstance(event, dict):
            raise FieldError(f"events[{index}]", "must be an object")
        time = event.get("time_unix_nano", event.get("timestamp"))
        events.append(
            SpanEvent(
                str(event.get("name", "")),
                _int(time, f"events[{index}].time_unix_nano"),
                dict(event.get("attributes") or {}),
            )
        )
    return Span(
        trace_id=str(_id(raw.get("trace_id"), 32, "trace_id", True)),
        span_id=str(_id(raw.get("span_id"), 16, "span_id", True)),
        parent_span_id=_id(raw.get("parent_span_id"), 16, "parent_span_id", False),
        name=str(raw.get("name", "")),
        kind=str(raw.get("kind") or "internal").lower().removeprefix("span_kind_"),
        start_time_unix_nano=_int(raw.get("start_time_unix_nano"), "start_time_unix_nano"),
        end_time_unix_nano=_int(raw.get("end_time_unix_nano"), "end_time_unix_nano"),
        status_code=_STATUS[code],
        status_message=status.get("description") or status.get("message") or None,
        attributes=dict(attributes),
        events=tuple(events),
        scope_name=raw.get("scope") if isinstance(raw.get("scope"), str) else None,
        convention_version=None,
    )


def decode_flat(document: list[Any], source: str, limit: int) -> DecodeResult:
    """Decode a parsed flat span list; bad spans are rejected with an error naming the field."""
    result = DecodeResult()
    for raw in document:
        try:
            if not isinstance(raw, dict):
                raise FieldError("span", "must be an object")
            result.spans.append(_span(raw, limit))
        except FieldError as exc:
            span_id = raw.get("span_id") if isinstance(raw, dict) else None
            result.errors.append(
                DecodeError(
                    source,
                    exc.field_name,
                    exc.message,
                    span_id if isinstance(span_id, str) else None,
                )
            )
    return result
