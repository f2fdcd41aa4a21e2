"""Attributes read from their wire bytes decode exactly as the generated classes read them.

``decode_protobuf`` parses requests as ``raw_attributes.RawRequest`` (span
attributes left as bytes, each distinct one decoded once). The reference here is the decoder
as it was: the generated ``ExportTraceServiceRequest`` parse, each ``KeyValue`` read through
its classes, and the salvage path for a request that does not parse. Hypothesis draws
requests whose attributes repeat across spans, nest near the parser's depth limit, hold
invalid UTF-8 or damaged bytes, oversized values and duplicate keys, on spans that may also
have bad ids: the spans and the errors must be the same.
"""

from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from eval_pipeline.traces.decode.errors import FieldError
from eval_pipeline.traces.decode.otlp import PROTOBUF, decode_raw
from eval_pipeline.traces.decode.otlp_protobuf import (
    decode_protobuf,
    pb_span,
    rejected,
    schema_urls,
)
from eval_pipeline.traces.decode.protobuf_salvage import salvage
from eval_pipeline.traces.decode.protobuf_values import attributes
from eval_pipeline.traces.decode.raw_attributes import RawRequest
from eval_pipeline.traces.decode.raw_span import RawBatch

LIMIT = 64


def _generated_decode(payload: bytes) -> RawBatch:
    """``decode_protobuf`` before ``raw_attributes``: the generated classes all the way."""
    try:
        request = ExportTraceServiceRequest.FromString(payload)
    except ProtobufDecodeError:
        return salvage(payload, "r", LIMIT)
    result = RawBatch()
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes, LIMIT)
        for scope_spans in resource_spans.scope_spans:
            urls = schema_urls(resource_spans, scope_spans)
            for span in scope_spans.spans:
                try:
                    result.spans.append(
                        pb_span(span, resource, scope_spans.scope.name or None, LIMIT, urls)
                    )
                except FieldError as exc:
                    result.errors.append(rejected(span, exc, "r"))
    return result


def _nested(depth: int, as_map: bool) -> AnyValue:
    value = AnyValue(string_value="leaf")
    for _ in range(depth):
        if as_map:
            value = AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key="k", value=value)]))
        else:
            value = AnyValue(array_value=ArrayValue(values=[value]))
    return value


# Serialized attributes, so a request can hold the same bytes on several spans.
_GOOD = st.one_of(
    st.builds(
        lambda key, text: KeyValue(key=key, value=AnyValue(string_value=text)),
        st.sampled_from(["gen_ai.operation.name", "a", "b", "gen_ai.input.messages"]),
        st.sampled_from(["chat", "x" * LIMIT, "x" * (LIMIT + 1), "café", ""]),
    ),
    st.builds(
        lambda key, number: KeyValue(key=key, value=AnyValue(int_value=number)),
        st.sampled_from(["gen_ai.usage.input_tokens", "a"]),
        st.integers(-(2**63), 2**63 - 1),
    ),
    st.builds(
        lambda value: KeyValue(key="d", value=AnyValue(double_value=value)),
        st.sampled_from([1.5, float("nan"), float("inf")]),
    ),
    st.builds(lambda: KeyValue(key="bool", value=AnyValue(bool_value=True))),
    st.builds(lambda: KeyValue(key="bytes", value=AnyValue(bytes_value=b"\x00\xff"))),
    st.builds(lambda: KeyValue(key="empty")),
    # Nesting around the generated parser's limit for a span attribute.
    st.builds(
        lambda shape: KeyValue(key="deep", value=_nested(*shape)),
        st.one_of(
            st.integers(0, 50).map(lambda d: (d, False)),
            st.integers(0, 33).map(lambda d: (d, True)),
        ),
    ),
).map(lambda kv: kv.SerializeToString())
_DAMAGED = st.sampled_from(
    [
        KeyValue(key="k", value=AnyValue(string_value="caf\x00")).SerializeToString()[:-1]
        + b"\xe9",
        b"\n\x03k\xffy",  # invalid UTF-8 in the key
        b"\n\x09k",  # truncated
    ]
)
_ATTRIBUTE = st.one_of(_GOOD, _GOOD, _GOOD, _DAMAGED)


def _span_bytes(index: int, attributes: list[bytes], bad_id: bool) -> bytes:
    span = PbSpan(
        trace_id=b"\x00" * 16 if bad_id else (index % 3 + 1).to_bytes(16, "big"),
        span_id=(index + 1).to_bytes(8, "big"),
        name=f"span-{index}",
    ).SerializeToString()
    # Field 9 (attributes), length-delimited: the bytes drawn, damaged ones included.
    return span + b"".join(b"\x4a" + _varint(len(item)) + item for item in attributes)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _request(spans: list[bytes]) -> bytes:
    """One resource, one scope, these spans (written by hand: they may not parse)."""
    body = b"".join(b"\x12" + _varint(len(span)) + span for span in spans)  # ScopeSpans.spans
    resource_spans = b"\x12" + _varint(len(body)) + body  # ResourceSpans.scope_spans
    return b"\x0a" + _varint(len(resource_spans)) + resource_spans


def _spans_and_errors(result: RawBatch) -> tuple[list[Any], list[Any]]:
    return list(result.spans), list(result.errors)


def _decoded(payload: bytes) -> RawBatch:
    """What the decoder makes of a protobuf request (the salvage path included)."""
    return decode_raw(payload, content_type=PROTOBUF, source="r", max_attribute_bytes=LIMIT)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.lists(_ATTRIBUTE, max_size=5), st.integers(0, 5).map(lambda n: n == 0)),
        min_size=1,
        max_size=5,
    )
)
def test_raw_attributes_decode_as_the_generated_classes(spans: list[tuple[list[bytes], bool]]):
    payload = _request(
        [_span_bytes(i, attributes, bad_id) for i, (attributes, bad_id) in enumerate(spans)]
    )
    assert _spans_and_errors(_decoded(payload)) == _spans_and_errors(_generated_decode(payload))


def test_a_damaged_attribute_sends_the_request_to_the_salvage_path():
    good = KeyValue(key="a", value=AnyValue(string_value="ok")).SerializeToString()
    payload = _request([_span_bytes(0, [good], False), _span_bytes(1, [b"\n\x03k\xffy"], False)])
    with_generated = _generated_decode(payload)
    assert [s.name for s in with_generated.spans] == ["span-0"]
    assert [e.span_id for e in with_generated.errors] == ["0000000000000002"]
    assert _spans_and_errors(_decoded(payload)) == _spans_and_errors(with_generated)
    RawRequest.FromString(payload)  # the raw parse alone takes it: the attribute decides
    assert decode_protobuf(payload, "r", LIMIT) is None  # left to the salvage path


def test_attributes_nested_past_the_request_limit_are_salvaged_as_before():
    # Arrays nest two messages a level, maps three: either way past 101 messages for the
    # request, and (maps, 33 levels) past what the salvage path's span parse takes.
    for depth, as_map in (
        (46, False),
        (47, False),
        (48, False),
        (49, False),
        (32, True),
        (33, True),
    ):
        kv = KeyValue(key="deep", value=_nested(depth, as_map)).SerializeToString()
        payload = _request([_span_bytes(0, [kv], False)])
        assert _spans_and_errors(_decoded(payload)) == _spans_and_errors(
            _generated_decode(payload)
        ), (depth, as_map)
