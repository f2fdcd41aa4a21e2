"""The salvage path of the protobuf decoder: a request the generated parser rejects as a whole.

The request is split on the wire format (``wire``) into its resources, scopes and spans; each
span is parsed on its own, so a span that does not parse (truncated, invalid UTF-8) is rejected
with an error naming its ids and the field at fault, and every other span is kept.
"""

from collections.abc import Iterator
from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from eval_pipeline.traces.decode.errors import DecodeError, FieldError
from eval_pipeline.traces.decode.otlp_protobuf import pb_span, rejected
from eval_pipeline.traces.decode.protobuf_values import attributes
from eval_pipeline.traces.decode.raw_span import NO_URLS, RawBatch
from eval_pipeline.traces.decode.wire import Truncated, diagnose_span, iter_fields


def salvage(payload: bytes, source: str, limit: int) -> RawBatch:
    """Every span of ``payload`` that parses on its own; an error for each other one."""
    result = RawBatch()
    where = "resource_spans"
    try:
        for rs_index, (_, rs_start, rs_end) in enumerate(_len_fields(payload, 0, len(payload), 1)):
            where = f"resource_spans[{rs_index}]"
            resource: dict[str, Any] = {}
            # The schema URL is written after the spans: read it first.
            resource_url = _string_field(payload, rs_start, rs_end, 3)
            for number, start, end in iter_fields(payload, rs_start, rs_end):
                if number == 1:
                    resource = attributes(Resource.FromString(payload[start:end]).attributes, limit)
                elif number == 2:
                    _salvage_scope(
                        payload,
                        (start, end),
                        (resource, resource_url),
                        source,
                        limit,
                        result,
                        where,
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
    bounds: tuple[int, int],
    origin: tuple[dict[str, Any], str | None],
    source: str,
    limit: int,
    result: RawBatch,
    where: str,
) -> None:
    start, end = bounds
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
                result.reject(
                    DecodeError(
                        source, field_name or f"{where}.spans[{index}]", message, span_id, trace_id
                    )
                )
                continue
            try:
                result.spans.append(pb_span(span, resource, scope, limit, urls))
            except FieldError as exc:
                result.reject(rejected(span, exc, source))


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


def _len_fields(buf: bytes, start: int, end: int, wanted: int) -> Iterator[tuple[int, int, int]]:
    for number, f_start, f_end in iter_fields(buf, start, end):
        if number == wanted:
            yield number, f_start, f_end
