"""OTLP/JSON ``ExportTraceServiceRequest`` -> ``RawSpan`` records.

The document is parsed with orjson; text orjson refuses (numbers beyond 64 bits, ``NaN``,
escaped lone surrogates, bytes that are not UTF-8) is parsed by the standard library, which
reads it as before or names the line and column it cannot read. Field values are decoded by
``json_values``; a bad span is rejected with an error naming the field, and the others kept.
"""

import base64
import json
from collections.abc import Iterator
from typing import Any

import orjson

from eval_pipeline.traces.decode.errors import DecodeError, FieldError
from eval_pipeline.traces.decode.json_values import (
    attributes,
    enum,
    get,
    hex_id,
    invalid_text,
    list_of,
    text,
    uint,
)
from eval_pipeline.traces.decode.raw_span import NO_URLS, RawBatch, RawSpan, Urls
from eval_pipeline.traces.model import SpanEvent, SpanLink, StatusCode

_KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
_STATUSES = (StatusCode.UNSET, StatusCode.OK, StatusCode.ERROR)


def events_of(raw: dict[str, Any], limit: int) -> tuple[SpanEvent, ...]:
    """The events of a JSON span object; raises ``FieldError`` naming a bad one."""
    events = []
    for index, event in enumerate(list_of(raw, "events", "events", "events")):
        if not isinstance(event, dict):
            raise FieldError(f"events[{index}]", "must be an object")
        events.append(
            SpanEvent(
                name=text(event.get("name", ""), f"events[{index}].name", limit),
                time_unix_nano=uint(
                    get(event, "timeUnixNano", "time_unix_nano"), f"events[{index}].timeUnixNano"
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
    for index, link in enumerate(list_of(raw, "links", "links", "links")):
        where = f"links[{index}]"
        if not isinstance(link, dict):
            raise FieldError(where, "must be an object")
        state = get(link, "traceState", "trace_state")
        links.append(
            SpanLink(
                trace_id=str(
                    hex_id(get(link, "traceId", "trace_id"), 32, f"{where}.traceId", True)
                ),
                span_id=str(hex_id(get(link, "spanId", "span_id"), 16, f"{where}.spanId", True)),
                trace_state=text(state, f"{where}.traceState", limit) if state else None,
                attributes=attributes(link.get("attributes", []), f"{where}.attributes", limit),
            )
        )
    return tuple(links)


def json_span(
    raw: Any, resource: dict[str, Any], scope: str | None, limit: int, urls: Urls = NO_URLS
) -> RawSpan:
    """One JSON span object -> its ``RawSpan``; raises ``FieldError`` for a bad field.

    ``urls`` are the scope's and the resource's schema URLs (as ``iter_scopes`` yields them).
    """
    if not isinstance(raw, dict):
        raise FieldError("span", f"must be an object, got {type(raw).__name__}")
    trace_id = hex_id(get(raw, "traceId", "trace_id"), 32, "traceId", True)
    span_id = hex_id(get(raw, "spanId", "span_id"), 16, "spanId", True)
    parent = hex_id(get(raw, "parentSpanId", "parent_span_id"), 16, "parentSpanId", False)
    status = raw.get("status") or {}
    if not isinstance(status, dict):
        raise FieldError("status", "must be an object")
    message = status.get("message")
    name = text(raw.get("name", ""), "name", limit)
    kind = enum(raw.get("kind"), _KINDS, "SPAN_KIND_", "kind")
    start = uint(get(raw, "startTimeUnixNano", "start_time_unix_nano"), "startTimeUnixNano")
    end = uint(get(raw, "endTimeUnixNano", "end_time_unix_nano"), "endTimeUnixNano")
    code = enum(status.get("code"), _STATUSES, "STATUS_CODE_", "status.code")
    status_message = text(message, "status.message", limit) if message else None
    events = events_of(raw, limit) if raw.get("events") is not None else ()
    span_attributes = attributes(raw.get("attributes", []), "attributes", limit)
    state = get(raw, "traceState", "trace_state")
    return RawSpan(
        str(trace_id),
        str(span_id),
        parent,
        name,
        kind,
        start,
        end,
        code,
        status_message,
        span_attributes,
        events,
        resource,
        scope,
        links_of(raw, limit) if raw.get("links") else (),
        text(state, "traceState", limit) if state else None,
        urls[0],
        urls[1],
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
    value = get(raw, camel, snake)
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
        return orjson.loads(payload), False
    except orjson.JSONDecodeError:
        pass  # not for orjson: the standard library reads it, or says where it cannot
    try:
        return json.loads(payload.decode("utf-8")), False
    except UnicodeDecodeError:
        return json.loads(payload.decode("utf-8", errors="surrogateescape")), True


def decode_json(payload: bytes, source: str, limit: int) -> RawBatch:
    """Decode an OTLP/JSON request; bad spans are rejected with an error, the rest kept."""
    result = RawBatch()
    try:
        document, not_utf8 = parse_document(payload)
    except json.JSONDecodeError as exc:
        result.errors.append(
            DecodeError(source, f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}")
        )
        return result
    except RecursionError:  # bad input for every caller (importers call this directly too)
        result.errors.append(DecodeError(source, "$", "cannot be read: JSON nested too deep"))
        return result
    try:
        for resource, scope, spans, urls in iter_scopes(document, limit):
            for raw in spans:
                if isinstance(resource, FieldError):
                    result.reject(span_error(raw, resource, source))
                    continue
                try:
                    bad = invalid_text(raw, "") if not_utf8 else None
                    if bad is not None:
                        raise FieldError(bad or "span", "invalid UTF-8")
                    result.spans.append(json_span(raw, resource, scope, limit, urls))
                except FieldError as exc:
                    result.reject(span_error(raw, exc, source))
                except RecursionError:
                    result.reject(span_error(raw, TOO_DEEP, source))
    except FieldError as exc:
        result.errors.append(DecodeError(source, exc.field_name, exc.message))
    return result


TOO_DEEP = FieldError("span", "cannot be ingested: nested too deep")
"""A span whose values nest deeper than Python can walk (``RecursionError``)."""
Scope = tuple[dict[str, Any] | FieldError, str | None, list[Any], Urls]
"""resource attributes (or why the scope's spans cannot be kept: a bad resource or scope name
rejects them), scope name,
raw spans, ``(scope schema URL, resource schema URL)``."""


def _schema_url(obj: dict[str, Any], where: str, limit: int) -> str | None:
    url = get(obj, "schemaUrl", "schema_url")
    return text(url, f"{where}.schemaUrl", limit) if url else None


def iter_scopes(document: Any, limit: int) -> Iterator[Scope]:
    """``Scope`` (resource, scope name, raw spans, schema URLs) for each scope of a request.

    Raises ``FieldError`` where the structure is off, only when iteration reaches it: the
    spans of the scopes before are decoded and kept (partial success).
    """
    if not isinstance(document, dict):
        raise FieldError("$", "an ExportTraceServiceRequest must be a JSON object")
    for r_index, resource_spans in enumerate(
        list_of(document, "resourceSpans", "resource_spans", "resourceSpans")
    ):
        where = f"resourceSpans[{r_index}]"
        if not isinstance(resource_spans, dict):
            raise FieldError(where, "must be an object")
        resource_obj = resource_spans.get("resource") or {}
        try:
            resource: dict[str, Any] | FieldError = (
                attributes(
                    resource_obj.get("attributes", []), f"{where}.resource.attributes", limit
                )
                if isinstance(resource_obj, dict)
                else {}
            )
        except FieldError as exc:  # this resource's spans are rejected, the others kept
            resource = exc
        try:
            resource_url = _schema_url(resource_spans, where, limit)
        except FieldError as exc:  # as a bad resource: its spans rejected, the others kept
            resource, resource_url = (resource if isinstance(resource, FieldError) else exc), None
        scopes = list_of(resource_spans, "scopeSpans", "scope_spans", f"{where}.scopeSpans")
        for s_index, scope_spans in enumerate(scopes):
            if not isinstance(scope_spans, dict):
                raise FieldError(f"{where}.scopeSpans[{s_index}]", "must be an object")
            spans = list_of(scope_spans, "spans", "spans", f"{where}.scopeSpans[{s_index}].spans")
            try:
                scope_url = _schema_url(scope_spans, f"{where}.scopeSpans[{s_index}]", limit)
            except FieldError as exc:  # as a bad scope name: this scope's spans rejected
                yield exc, None, spans, NO_URLS
                continue
            urls = (scope_url, resource_url) if scope_url or resource_url else NO_URLS
            scope = _scope_name(scope_spans, f"{where}.scopeSpans[{s_index}].scope", limit)
            if isinstance(scope, FieldError):  # this scope's spans are rejected, the others kept
                yield scope, None, spans, urls
            else:
                yield resource, scope, spans, urls


def _scope_name(scope_spans: dict[str, Any], where: str, limit: int) -> str | FieldError | None:
    """The scope's name (None when unset or empty), or why it cannot be one.

    OTLP names a scope with a string; any other JSON value (a number, an object, an array) is
    the scope's error, so only its spans are rejected and the request's other spans are kept.
    """
    scope_obj = scope_spans.get("scope")
    if not isinstance(scope_obj, dict):  # no scope (as a resource that is not an object)
        return None
    name = scope_obj.get("name")
    if name is None:
        return None
    try:
        return text(name, f"{where}.name", limit) or None
    except FieldError as exc:
        return exc
