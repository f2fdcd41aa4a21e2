"""OTLP ``ExportTraceServiceRequest`` in protobuf -> raw spans (before normalisation).

The fast path parses the whole request with the generated classes (span attributes as their
bytes, read once each: ``raw_attributes``). When that fails (a truncated body, invalid UTF-8 in
one string), the request is split on the wire format and each span is parsed on its own, so
one bad span is rejected and the others are kept.
"""

import base64
import math
from collections.abc import Iterator
from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult, FieldError
from eval_pipeline.traces.decode.raw_attributes import AttributeReader, DamagedAttribute, RawRequest
from eval_pipeline.traces.decode.wire import Truncated, diagnose_span, iter_fields
from eval_pipeline.traces.model import Span, SpanEvent, SpanLink, StatusCode
from eval_pipeline.traces.span_factory import RAW_DEFAULTS as _RAW_DEFAULTS
from eval_pipeline.traces.span_factory import span_from_state

KIND_NAMES = ("unspecified", "internal", "server", "client", "producer", "consumer")
STATUS_NAMES = (StatusCode.UNSET, StatusCode.OK, StatusCode.ERROR)
_ZERO_TRACE = "0" * 32
_NO_KEYS: frozenset[str] = frozenset()
_ZERO_SPAN = "0" * 16
NO_URLS: tuple[None, None] = (None, None)
"""``(scope schema URL, resource schema URL)`` of a scope that names neither."""


def _value(value: AnyValue, key: str, limit: int) -> Any:
    which = value.WhichOneof("value")
    if which == "string_value":
        text = value.string_value
        if len(text) > limit:
            raise FieldError(f"attributes[{key}]", f"value of {len(text)} chars exceeds {limit}")
        return text
    if which == "int_value":
        return value.int_value
    if which == "double_value":
        double = value.double_value
        if not math.isfinite(double):
            raise FieldError(f"attributes[{key}]", f"doubleValue must be finite, got {double}")
        return double
    if which == "bool_value":
        return value.bool_value
    if which == "array_value":
        return [_value(item, key, limit) for item in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _value(kv.value, key, limit) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        raw = value.bytes_value
        if len(raw) > limit:
            raise FieldError(f"attributes[{key}]", f"value of {len(raw)} bytes exceeds {limit}")
        return base64.b64encode(raw).decode("ascii")
    return None


def attributes(pairs: Any, limit: int) -> dict[str, Any]:
    """Protobuf ``KeyValue`` list -> dict (bytes as base64 text, kvlists as dicts)."""
    return split_attributes(pairs, limit, _NO_KEYS)[0]


def split_attributes(
    pairs: Any, limit: int, apart: frozenset[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``attributes``, with the keys in ``apart`` put in a second dict (same values, order).

    The ingestion fast path sets apart the attributes it lifts into span fields.
    """
    out: dict[str, Any] = {}
    set_apart: dict[str, Any] = {}
    for kv in pairs:
        value = kv.value
        key = kv.key
        # Non-empty strings are nearly every attribute: one read tells them apart (a oneof
        # reads as "" when another member is set), then ints; the rest take the general way.
        read = value.string_value
        if read:
            if len(read) > limit:
                raise FieldError(
                    f"attributes[{key}]", f"value of {len(read)} chars exceeds {limit}"
                )
        elif value.WhichOneof("value") == "int_value":
            read = value.int_value
        else:
            read = _value(value, key, limit)
        (set_apart if key in apart else out)[key] = read
    return out, set_apart


def links(pb_links: Any, limit: int) -> tuple[SpanLink, ...]:
    """Protobuf ``Span.Link`` list -> ``SpanLink`` tuple; raises ``FieldError`` for a bad id."""
    out = []
    for index, link in enumerate(pb_links):
        trace_id = link.trace_id.hex()
        span_id = link.span_id.hex()
        if len(trace_id) != 32 or trace_id == _ZERO_TRACE:
            raise FieldError(f"links[{index}].trace_id", "must be 16 non-zero bytes")
        if len(span_id) != 16 or span_id == _ZERO_SPAN:
            raise FieldError(f"links[{index}].span_id", "must be 8 non-zero bytes")
        out.append(
            SpanLink(
                trace_id, span_id, link.trace_state or None, attributes(link.attributes, limit)
            )
        )
    return tuple(out)


def schema_urls(resource_spans: Any, scope_spans: Any) -> tuple[str | None, str | None]:
    """``(scope schema URL, resource schema URL)`` of a scope's spans (None when unset)."""
    scope_url = scope_spans.schema_url
    resource_url = resource_spans.schema_url
    return (scope_url or None, resource_url or None) if scope_url or resource_url else NO_URLS


def attribute_reader(limit: int) -> AttributeReader:
    """A reader of one ``RawRequest``'s span attributes (values converted as here)."""
    return AttributeReader(_value, limit)


def pb_span(
    span: PbSpan,
    resource: dict[str, Any],
    scope: str | None,
    limit: int,
    urls: tuple[str | None, str | None] = NO_URLS,
    reader: AttributeReader | None = None,
) -> Span:
    """One protobuf span -> a raw ``Span``; raises ``FieldError`` for a bad field.

    ``urls`` are the scope's and the resource's schema URLs (``schema_urls``). ``reader``:
    the span is a ``RawRequest``'s (attributes as bytes), read first so that a damaged one
    raises ``DamagedAttribute`` whatever else is wrong; a bad value is still reported in
    the order of the checks below.
    """
    span_attributes: dict[str, Any] | None = None
    problem: FieldError | None = None
    if reader is not None:
        try:
            span_attributes = reader.split(span.attributes, _NO_KEYS)[0]
        except FieldError as exc:
            problem = exc
    trace_id = span.trace_id.hex()
    span_id = span.span_id.hex()
    parent = span.parent_span_id.hex()
    if len(trace_id) != 32 or trace_id == _ZERO_TRACE:
        raise FieldError("trace_id", f"must be 16 non-zero bytes, got {len(trace_id) // 2}")
    if len(span_id) != 16 or span_id == _ZERO_SPAN:
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
        else ()
    )
    if problem is not None:
        raise problem
    if span_attributes is None:
        span_attributes = attributes(span.attributes, limit)
    status = span.status
    code = status.code
    kind = span.kind
    return span_from_state(
        {
            **_RAW_DEFAULTS,
            "trace_id": trace_id,
            "span_id": span_id,
            "parent_span_id": parent if parent and parent != _ZERO_SPAN else None,
            "name": span.name,
            "kind": KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else "unspecified",
            "start_time_unix_nano": span.start_time_unix_nano,
            "end_time_unix_nano": span.end_time_unix_nano,
            "status_code": STATUS_NAMES[code] if 0 <= code < 3 else StatusCode.UNSET,
            "status_message": status.message or None,
            "attributes": span_attributes,
            "events": events,
            "resource": resource,
            "scope_name": scope,
            "convention_version": None,
            "links": links(span.links, limit) if span.links else (),
            "trace_state": span.trace_state or None,
            "schema_url": urls[0],
            "resource_schema_url": urls[1],
        }
    )


def decode_protobuf(payload: bytes, source: str, limit: int) -> DecodeResult:
    """Decode a protobuf request; per-span errors on the salvage path (see module docstring).

    The request is parsed as a ``RawRequest`` (``raw_attributes``); a damaged attribute
    means the generated classes would not have parsed it: salvaged as such.
    """
    try:
        request = RawRequest.FromString(payload)
        return _decode_request(request, source, limit)
    except (ProtobufDecodeError, DamagedAttribute):
        return _salvage(payload, source, limit)


def _decode_request(request: Any, source: str, limit: int) -> DecodeResult:
    reader = attribute_reader(limit)
    result = DecodeResult()
    keep = result.spans.append
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes, limit)
        for scope_spans in resource_spans.scope_spans:
            scope = scope_spans.scope.name or None
            urls = schema_urls(resource_spans, scope_spans)
            for span in scope_spans.spans:
                try:
                    keep(pb_span(span, resource, scope, limit, urls, reader))
                except FieldError as exc:
                    result.errors.append(rejected(span, exc, source))
    return result


def _keep(
    result: DecodeResult,
    span: PbSpan,
    resource: dict[str, Any],
    scope: str | None,
    source: str,
    limit: int,
    urls: tuple[str | None, str | None],
) -> None:
    try:
        result.spans.append(pb_span(span, resource, scope, limit, urls))
    except FieldError as exc:
        result.errors.append(rejected(span, exc, source))


def rejected(span: PbSpan, exc: FieldError, source: str) -> DecodeError:
    """The error for a span the decoder rejects (source, field, message and its ids)."""
    return DecodeError(
        source,
        exc.field_name,
        exc.message,
        span.span_id.hex() or None,
        span.trace_id.hex() or None,
    )


def _salvage(payload: bytes, source: str, limit: int) -> DecodeResult:
    result = DecodeResult()
    where = "resource_spans"
    try:
        for rs_index, (_, rs_start, rs_end) in enumerate(_len_fields(payload, 0, len(payload), 1)):
            where = f"resource_spans[{rs_index}]"
            resource: dict[str, Any] = {}
            # The schema URL is written after the spans: read it first.
            resource_url = _string_field(payload, rs_start, rs_end, 3)
            for number, start, end in iter_fields(payload, rs_start, rs_end):
                if number == 1:
                    resource = _parse_resource(payload[start:end], limit)
                elif number == 2:
                    _salvage_scope(
                        payload, start, end, (resource, resource_url), source, limit, result, where
                    )
    except Truncated as exc:
        if not any("truncated" in error.message for error in result.errors):
            result.errors.append(
                DecodeError(source, where, f"truncated protobuf at byte {exc.offset}")
            )
    except (ProtobufDecodeError, FieldError) as exc:
        result.errors.append(DecodeError(source, where, f"invalid protobuf: {exc}"))
    return result


def _salvage_scope(
    payload: bytes,
    start: int,
    end: int,
    origin: tuple[dict[str, Any], str | None],
    source: str,
    limit: int,
    result: DecodeResult,
    where: str,
) -> None:
    resource, resource_url = origin
    scope_url = _string_field(payload, start, end, 3)
    urls = (scope_url, resource_url) if scope_url or resource_url else NO_URLS
    scope: str | None = None
    for index, (number, s_start, s_end) in enumerate(iter_fields(payload, start, end)):
        if number == 1:
            scope = InstrumentationScope.FromString(payload[s_start:s_end]).name or None
        elif number == 2:
            chunk = payload[s_start:s_end]
            try:
                span = PbSpan.FromString(chunk)
            except ProtobufDecodeError:
                trace_id, span_id, field_name, message = diagnose_span(chunk)
                result.errors.append(
                    DecodeError(
                        source, field_name or f"{where}.spans[{index}]", message, span_id, trace_id
                    )
                )
                continue
            _keep(result, span, resource, scope, source, limit, urls)


def _string_field(buf: bytes, start: int, end: int, wanted: int) -> str | None:
    """The last string field ``wanted`` in ``buf[start:end]`` (None if absent, cut or bad)."""
    found = None
    try:
        for number, f_start, f_end in iter_fields(buf, start, end):
            if number == wanted:
                found = buf[f_start:f_end].decode("utf-8")
    except (Truncated, UnicodeDecodeError):
        return None
    return found or None


def _parse_resource(chunk: bytes, limit: int) -> dict[str, Any]:
    return attributes(Resource.FromString(chunk).attributes, limit)


def _len_fields(buf: bytes, start: int, end: int, wanted: int) -> Iterator[tuple[int, int, int]]:
    for number, f_start, f_end in iter_fields(buf, start, end):
        if number == wanted:
            yield number, f_start, f_end
