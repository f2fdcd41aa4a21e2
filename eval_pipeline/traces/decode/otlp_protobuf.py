"""OTLP ``ExportTraceServiceRequest`` in protobuf -> ``RawSpan`` records.

The request is parsed once with the generated classes, span attributes as their bytes, each
distinct one read once (``raw_attributes``). When that fails (a truncated body, invalid UTF-8
in one string), the request is split on the wire format and each span is parsed on its own
(``protobuf_salvage``), so one bad span is rejected and the others are kept.
"""

from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from eval_pipeline.traces.decode.errors import DecodeError, FieldError
from eval_pipeline.traces.decode.protobuf_values import (
    ZERO_SPAN,
    ZERO_TRACE,
    attribute_reader,
    attributes,
    links,
)
from eval_pipeline.traces.decode.raw_attributes import AttributeReader, DamagedAttribute, RawRequest
from eval_pipeline.traces.decode.raw_span import NO_URLS, RawBatch, RawSpan, Urls
from eval_pipeline.traces.model import SpanEvent, StatusCode

KIND_NAMES = ("unspecified", "internal", "server", "client", "producer", "consumer")
STATUS_NAMES = (StatusCode.UNSET, StatusCode.OK, StatusCode.ERROR)
_NO_EVENTS: tuple[()] = ()


def pb_span(
    span: PbSpan,
    resource: dict[str, Any],
    scope: str | None,
    limit: int,
    urls: Urls = NO_URLS,
    reader: AttributeReader | None = None,
) -> RawSpan:
    """One protobuf span -> its ``RawSpan``; raises ``FieldError`` for a bad field.

    ``urls`` are the scope's and the resource's schema URLs (``schema_urls``). ``reader``:
    the span is a ``RawRequest``'s (attributes as bytes), read first so that a damaged one
    raises ``DamagedAttribute`` whatever else is wrong; a bad value is still reported in
    the order of the checks below.
    """
    span_attributes: dict[str, Any] | None = None
    problem: FieldError | None = None
    if reader is not None:
        try:
            span_attributes = reader.read(span.attributes)
        except FieldError as exc:
            problem = exc
    trace_id = span.trace_id.hex()
    span_id = span.span_id.hex()
    parent = span.parent_span_id.hex()
    if len(trace_id) != 32 or trace_id == ZERO_TRACE:
        raise FieldError("trace_id", f"must be 16 non-zero bytes, got {len(trace_id) // 2}")
    if len(span_id) != 16 or span_id == ZERO_SPAN:
        raise FieldError("span_id", f"must be 8 non-zero bytes, got {len(span_id) // 2}")
    if parent and len(parent) != 16:
        raise FieldError("parent_span_id", f"must be 8 bytes, got {len(parent) // 2}")
    events: Any = span.events
    events = (
        tuple(
            SpanEvent(event.name, event.time_unix_nano, attributes(event.attributes, limit))
            for event in events
        )
        if events
        else _NO_EVENTS
    )
    if problem is not None:
        raise problem
    if span_attributes is None:
        span_attributes = attributes(span.attributes, limit)
    span_links: Any = span.links
    kind = span.kind
    if span.HasField("status"):  # most spans carry none
        status = span.status
        code = status.code
        status_code = STATUS_NAMES[code] if 0 <= code < 3 else StatusCode.UNSET
        status_message = status.message or None
    else:
        status_code, status_message = StatusCode.UNSET, None
    return RawSpan(
        trace_id,
        span_id,
        parent if parent and parent != ZERO_SPAN else None,
        span.name,
        KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else "unspecified",
        span.start_time_unix_nano,
        span.end_time_unix_nano,
        status_code,
        status_message,
        span_attributes,
        events,
        resource,
        scope,
        links(span_links, limit) if span_links else (),
        span.trace_state or None,
        urls[0],
        urls[1],
    )


def schema_urls(resource_spans: Any, scope_spans: Any) -> Urls:
    """``(scope schema URL, resource schema URL)`` of a scope's spans (None when unset)."""
    scope_url = scope_spans.schema_url
    resource_url = resource_spans.schema_url
    return (scope_url or None, resource_url or None) if scope_url or resource_url else NO_URLS


def decode_protobuf(payload: bytes, source: str, limit: int) -> RawBatch | None:
    """Decode a protobuf request; None when it does not parse as a whole (to be salvaged).

    The request is parsed as a ``RawRequest`` (``raw_attributes``); a damaged attribute
    means the generated classes would not have parsed it: salvaged as such.
    """
    try:
        return _decode_request(RawRequest.FromString(payload), source, limit)
    except (ProtobufDecodeError, DamagedAttribute):
        return None


def _decode_request(request: Any, source: str, limit: int) -> RawBatch:
    reader = attribute_reader(limit)
    batch = RawBatch()
    keep = batch.spans.append
    for resource_spans in request.resource_spans:
        try:
            resource = attributes(resource_spans.resource.attributes, limit)
        except FieldError as exc:  # this resource's spans only: the others are kept
            problem = FieldError(f"resource.{exc.field_name}", exc.message)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    batch.reject(rejected(span, problem, source))
            continue
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope.name or None
            urls = schema_urls(resource_spans, scope_spans)
            for span in scope_spans.spans:
                try:
                    keep(pb_span(span, resource, scope, limit, urls, reader))
                except FieldError as exc:
                    batch.reject(rejected(span, exc, source))
                except RecursionError:  # a value nested too deep: bad input, this span only
                    batch.reject(rejected(span, TOO_DEEP, source))
    return batch


TOO_DEEP = FieldError("span", "cannot be ingested: nested too deep")
"""A span whose values nest deeper than Python can walk (``RecursionError``)."""


def rejected(span: PbSpan, exc: FieldError, source: str) -> DecodeError:
    """The error for a span the decoder rejects (source, field, message and its ids)."""
    return DecodeError(
        source,
        exc.field_name,
        exc.message,
        span.span_id.hex() or None,
        span.trace_id.hex() or None,
    )
