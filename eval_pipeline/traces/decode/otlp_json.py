"""OTLP/JSON ``ExportTraceServiceRequest`` -> raw spans (before normalisation).

Follows the OTLP/JSON mapping: ids are lowercase hex (not base64), 64-bit integers may be
strings, enums may be integers or their names, keys are lowerCamelCase (snake_case accepted).
Every ``AnyValue`` kind is decoded: kvlists become dicts, arrays lists, bytes base64 text.
"""

import base64
import json
import math
from collections.abc import Iterator
from typing import Any

from eval_pipeline.traces.decode.errors import (
    INT64_MAX,
    INT64_MIN,
    DecodeError,
    DecodeResult,
    FieldError,
)
from eval_pipeline.traces.model import Span, SpanEvent, SpanLink, StatusCode

_KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
_STATUSES = (StatusCode.UNSET, StatusCode.OK, StatusCode.ERROR)
_HEX = frozenset("0123456789abcdef")
NO_URLS: tuple[None, None] = (None, None)
"""``(scope schema URL, resource schema URL)`` of a scope that names neither."""


def _get(obj: dict[str, Any], camel: str, snake: str) -> Any:
    value = obj.get(camel)
    return obj.get(snake) if value is None else value


def _list(obj: dict[str, Any], camel: str, snake: str, where: str) -> list[Any]:
    value = _get(obj, camel, snake)
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldError(where, f"must be a list, got {type(value).__name__}")
    return value


def _hex_id(value: Any, size: int, field_name: str, required: bool) -> str | None:
    if value in (None, ""):
        if required:
            raise FieldError(field_name, "is missing")
        return None
    if not isinstance(value, str):
        raise FieldError(field_name, f"must be a hex string, got {type(value).__name__}")
    text = value.lower()
    if len(text) != size or not _HEX.issuperset(text):
        raise FieldError(field_name, f"must be {size} hex characters, got {value[:40]!r}")
    if text.count("0") == size:
        if required:
            raise FieldError(field_name, "must not be all zeros")
        return None
    return text


def _uint(value: Any, field_name: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise FieldError(field_name, f"must be an integer, got {type(value).__name__}")
    try:
        number = int(value)
    except ValueError:
        raise FieldError(field_name, f"must be an integer, got {value!r}") from None
    if number < 0:
        raise FieldError(field_name, f"must not be negative, got {number}")
    if number > INT64_MAX:
        raise FieldError(field_name, f"{number} is beyond the 64-bit range the store holds")
    return number


def _enum(value: Any, names: tuple[str, ...], prefix: str, field_name: str) -> str:
    if value is None:
        return names[0]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    if isinstance(value, str):
        short = value.upper().removeprefix(prefix).lower()
        if short in names:
            return short
    raise FieldError(field_name, f"unknown enum value {value!r}")


def _text(value: Any, field_name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise FieldError(field_name, f"must be a string, got {type(value).__name__}")
    if len(value) > limit:
        raise FieldError(field_name, f"value of {len(value)} chars exceeds {limit}")
    return value


def _value(value: Any, field_name: str, limit: int) -> Any:
    if not isinstance(value, dict):
        raise FieldError(field_name, f"AnyValue must be an object, got {type(value).__name__}")
    if not value:
        return None
    kind, raw = next(iter(value.items()))
    if kind == "stringValue" or kind == "string_value":
        return _text(raw, field_name, limit)
    if kind in ("intValue", "int_value"):
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise FieldError(field_name, f"intValue must be an integer, got {raw!r}")
        try:
            number = int(raw) if len(str(raw)) <= 24 else None
        except ValueError:
            number = None
        if number is None or not INT64_MIN <= number <= INT64_MAX:
            raise FieldError(field_name, f"intValue must be a 64-bit integer, got {raw!r:.40}")
        return number
    if kind in ("doubleValue", "double_value"):
        if isinstance(raw, bool) or not isinstance(raw, int | float | str):
            raise FieldError(field_name, f"doubleValue must be a number, got {raw!r:.40}")
        try:
            double = float(raw) if len(str(raw)) <= 400 else math.nan
        except (ValueError, OverflowError):
            double = math.nan
        if not math.isfinite(double):
            raise FieldError(field_name, f"doubleValue must be a finite number, got {raw!r:.40}")
        return double
    if kind in ("boolValue", "bool_value"):
        if not isinstance(raw, bool):
            raise FieldError(field_name, f"boolValue must be a boolean, got {raw!r}")
        return raw
    if kind in ("arrayValue", "array_value"):
        items = raw.get("values", []) if isinstance(raw, dict) else None
        if not isinstance(items, list):
            raise FieldError(field_name, "arrayValue.values must be a list")
        return [_value(item, field_name, limit) for item in items]
    if kind in ("kvlistValue", "kvlist_value"):
        pairs = raw.get("values", []) if isinstance(raw, dict) else None
        if not isinstance(pairs, list):
            raise FieldError(field_name, "kvlistValue.values must be a list")
        return attributes(pairs, field_name, limit)
    if kind in ("bytesValue", "bytes_value"):
        return _text(raw, field_name, limit)
    raise FieldError(field_name, f"unknown AnyValue kind {kind!r}")


def attributes(pairs: Any, where: str, limit: int) -> dict[str, Any]:
    """A JSON ``KeyValue`` list -> dict; ``where`` prefixes the field named in errors."""
    if not isinstance(pairs, list):
        raise FieldError(where, f"must be a list, got {type(pairs).__name__}")
    out: dict[str, Any] = {}
    for pair in pairs:
        key = pair.get("key") if isinstance(pair, dict) else None
        if not isinstance(key, str):
            raise FieldError(where, f"every attribute needs a string key, got {pair!r:.80}")
        out[key] = _value(pair.get("value", {}), f"{where}[{key}]", limit)
    return out


Head = tuple[str, str, str | None, str, str, int, int, str, str | None]
"""A span's fields before its attributes: trace id, span id, parent span id, name, kind,
start and end time, status code and message."""


def span_head(raw: dict[str, Any], limit: int) -> Head:
    """The head fields of a JSON span object; raises ``FieldError`` naming a bad one."""
    trace_id = _hex_id(_get(raw, "traceId", "trace_id"), 32, "traceId", True)
    span_id = _hex_id(_get(raw, "spanId", "span_id"), 16, "spanId", True)
    parent = _hex_id(_get(raw, "parentSpanId", "parent_span_id"), 16, "parentSpanId", False)
    status = raw.get("status") or {}
    if not isinstance(status, dict):
        raise FieldError("status", "must be an object")
    message = status.get("message")
    return (
        str(trace_id),
        str(span_id),
        parent,
        _text(raw.get("name", ""), "name", limit),
        _enum(raw.get("kind"), _KINDS, "SPAN_KIND_", "kind"),
        _uint(_get(raw, "startTimeUnixNano", "start_time_unix_nano"), "startTimeUnixNano"),
        _uint(_get(raw, "endTimeUnixNano", "end_time_unix_nano"), "endTimeUnixNano"),
        _enum(status.get("code"), _STATUSES, "STATUS_CODE_", "status.code"),
        _text(message, "status.message", limit) if message else None,
    )


def events_of(raw: dict[str, Any], limit: int) -> tuple[SpanEvent, ...]:
    """The events of a JSON span object; raises ``FieldError`` naming a bad one."""
    events = []
    for index, event in enumerate(_list(raw, "events", "events", "events")):
        if not isinstance(event, dict):
            raise FieldError(f"events[{index}]", "must be an object")
        events.append(
            SpanEvent(
                name=_text(event.get("name", ""), f"events[{index}].name", limit),
                time_unix_nano=_uint(
                    _get(event, "timeUnixNano", "time_unix_nano"), f"events[{index}].timeUnixNano"
                ),
                attributes=attributes(
                    event.get("attributes", []), f"events[{index}].attributes", limit
                ),
            )
        )
    return tuple(events)


def links_of(raw: dict[str, Any], limit: int) -> tuple[SpanLink, ...]:
    """The links of a JSON span object; raises ``FieldError`` naming a bad one."""
    links = []
    for index, link in enumerate(_list(raw, "links", "links", "links")):
        where = f"links[{index}]"
        if not isinstance(link, dict):
            raise FieldError(where, "must be an object")
        state = _get(link, "traceState", "trace_state")
        links.append(
            SpanLink(
                trace_id=str(
                    _hex_id(_get(link, "traceId", "trace_id"), 32, f"{where}.traceId", True)
                ),
                span_id=str(_hex_id(_get(link, "spanId", "span_id"), 16, f"{where}.spanId", True)),
                trace_state=_text(state, f"{where}.traceState", limit) if state else None,
                attributes=attributes(link.get("attributes", []), f"{where}.attributes", limit),
            )
        )
    return tuple(links)


def trace_state_of(raw: dict[str, Any], limit: int) -> str | None:
    """The W3C trace state of a JSON span object (None when empty)."""
    state = _get(raw, "traceState", "trace_state")
    return _text(state, "traceState", limit) if state else None


def json_span(
    raw: Any,
    resource: dict[str, Any],
    scope: str | None,
    limit: int,
    urls: tuple[str | None, str | None] = NO_URLS,
) -> Span:
    """One JSON span object -> a raw ``Span``; raises ``FieldError`` for a bad field.

    ``urls`` are the scope's and the resource's schema URLs (as ``iter_scopes`` yields them).
    """
    if not isinstance(raw, dict):
        raise FieldError("span", f"must be an object, got {type(raw).__name__}")
    trace_id, span_id, parent, name, kind, start, end, code, message = span_head(raw, limit)
    events = events_of(raw, limit)
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent,
        name=name,
        kind=kind,
        start_time_unix_nano=start,
        end_time_unix_nano=end,
        status_code=code,
        status_message=message,
        attributes=attributes(raw.get("attributes", []), "attributes", limit),
        events=events,
        resource=resource,
        scope_name=scope,
        convention_version=None,
        links=links_of(raw, limit) if raw.get("links") else (),
        trace_state=trace_state_of(raw, limit),
        schema_url=urls[0],
        resource_schema_url=urls[1],
    )


def to_document(request: Any) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` message as an OTLP/JSON document.

    The protobuf JSON mapping writes ids, like all bytes, as base64; OTLP/JSON wants them hex.
    Enums come out as names and 64-bit integers as strings, both of which OTLP/JSON allows.
    """
    from google.protobuf.json_format import MessageToDict

    document: dict[str, Any] = MessageToDict(request)
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for item in (span, *span.get("links", [])):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in item:
                            item[key] = base64.b64decode(item[key]).hex()
    return document


def _raw_id(raw: Any, camel: str, snake: str) -> str | None:
    if not isinstance(raw, dict):
        return None
    value = _get(raw, camel, snake)
    return value if isinstance(value, str) and value else None


def span_error(raw: Any, exc: FieldError, source: str) -> DecodeError:
    """The error for a span the decoder rejects (source, field, message and its ids)."""
    return DecodeError(
        source,
        exc.field_name,
        exc.message,
        _raw_id(raw, "spanId", "span_id"),
        _raw_id(raw, "traceId", "trace_id"),
    )


def parse_document(payload: bytes) -> tuple[Any, bool]:
    """The JSON document of a request, and whether it held bytes that are not UTF-8.

    Undecodable bytes become lone surrogates, so only the spans holding one are rejected.
    Raises ``json.JSONDecodeError`` for text that is not JSON.
    """
    try:
        return json.loads(payload.decode("utf-8")), False
    except UnicodeDecodeError:
        return json.loads(payload.decode("utf-8", errors="surrogateescape")), True


def decode_json(payload: bytes, source: str, limit: int) -> DecodeResult:
    """Decode an OTLP/JSON request; bad spans are rejected with an error, the rest kept."""
    result = DecodeResult()
    try:
        document, strict = parse_document(payload)
    except json.JSONDecodeError as exc:
        result.errors.append(
            DecodeError(source, f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}")
        )
        return result
    try:
        for resource, scope, spans, urls in iter_scopes(document, limit):
            for raw in spans:
                try:
                    bad = _invalid_text(raw, "") if strict else None
                    if bad is not None:
                        raise FieldError(bad or "span", "invalid UTF-8")
                    result.spans.append(json_span(raw, resource, scope, limit, urls))
                except FieldError as exc:
                    result.errors.append(span_error(raw, exc, source))
    except FieldError as exc:
        result.errors.append(DecodeError(source, exc.field_name, exc.message))
    return result


Scope = tuple[dict[str, Any], str | None, list[Any], tuple[str | None, str | None]]
"""resource attributes, scope name, raw spans, ``(scope schema URL, resource schema URL)``."""


def _schema_url(obj: dict[str, Any], where: str, limit: int) -> str | None:
    url = _get(obj, "schemaUrl", "schema_url")
    return _text(url, f"{where}.schemaUrl", limit) if url else None


def iter_scopes(document: Any, limit: int) -> Iterator[Scope]:
    """``Scope`` (resource, scope name, raw spans, schema URLs) for each scope of a request.

    Raises ``FieldError`` where the structure is off, only when iteration reaches it: the
    spans of the scopes before are decoded and kept (partial success).
    """
    if not isinstance(document, dict):
        raise FieldError("$", "an ExportTraceServiceRequest must be a JSON object")
    for r_index, resource_spans in enumerate(
        _list(document, "resourceSpans", "resource_spans", "resourceSpans")
    ):
        where = f"resourceSpans[{r_index}]"
        if not isinstance(resource_spans, dict):
            raise FieldError(where, "must be an object")
        resource_obj = resource_spans.get("resource") or {}
        resource = (
            attributes(resource_obj.get("attributes", []), f"{where}.resource.attributes", limit)
            if isinstance(resource_obj, dict)
            else {}
        )
        resource_url = _schema_url(resource_spans, where, limit)
        scopes = _list(resource_spans, "scopeSpans", "scope_spans", f"{where}.scopeSpans")
        for s_index, scope_spans in enumerate(scopes):
            if not isinstance(scope_spans, dict):
                raise FieldError(f"{where}.scopeSpans[{s_index}]", "must be an object")
            scope_obj = scope_spans.get("scope") or {}
            scope = scope_obj.get("name") if isinstance(scope_obj, dict) else None
            spans = _list(scope_spans, "spans", "spans", f"{where}.scopeSpans[{s_index}].spans")
            scope_url = _schema_url(scope_spans, f"{where}.scopeSpans[{s_index}]", limit)
            urls = (scope_url, resource_url) if scope_url or resource_url else NO_URLS
            yield resource, scope or None, spans, urls


def _invalid_text(value: Any, path: str) -> str | None:
    """The path of the first string holding undecodable bytes, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, dict):
        if isinstance(value.get("key"), str) and "value" in value:
            path = f"{path}[{value['key']}]" if path else f"attributes[{value['key']}]"
            return _invalid_text(value["key"], path) or _invalid_text(value["value"], path)
        for key, item in value.items():
            found = _invalid_text(item, key if not path else f"{path}.{key}")
            if found is not None:
                return found
    if isinstance(value, list):
        for item in value:
            found = _invalid_text(item, path)
            if found is not None:
                return found
    return None
