"""OTLP decoding contract.

OTLP decoding contract: every shared sample decodes; every AnyValue kind and enum form is
read; bad input rejects only the bad span with an error naming source, span and field
(OTLP partial-success semantics), for both JSON and protobuf bodies.
"""

import json

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF, decode_otlp
from eval_pipeline_tests.traces.builders import (
    AGENTS,
    CHAT,
    OTEL,
    SYNTHETIC,
    json_span,
    otlp_json,
    otlp_protobuf,
)


@pytest.mark.parametrize("path", sorted(OTEL.rglob("*.otlp.json")), ids=lambda p: p.name)
def test_every_otlp_sample_decodes_without_errors(path):
    raw = json.loads(path.read_text())
    expected = sum(len(s["spans"]) for r in raw["resourceSpans"] for s in r["scopeSpans"])
    result = decode_otlp(path.read_bytes(), content_type=JSON, source=str(path))
    assert result.errors == []
    assert len(result.spans) == expected
    assert all(len(s.trace_id) == 32 and len(s.span_id) == 16 for s in result.spans)


def test_json_and_protobuf_bodies_decode_to_equal_spans():
    path = AGENTS / "test_agent_with_function_tool_spans.otlp.json"
    from_json = decode_otlp(path.read_bytes(), content_type=JSON, source="j").spans
    payload = otlp_protobuf(json.loads(path.read_text()))
    from_pb = decode_otlp(payload, content_type=PROTOBUF, source="p").spans
    assert from_pb == from_json


def test_every_anyvalue_kind_and_enum_names_are_read():
    path = SYNTHETIC / "openinference_support_session.otlp.json"
    spans = decode_otlp(path.read_bytes(), content_type=JSON, source="s").spans
    root = next(s for s in spans if s.span_id == "a100000000000001")
    assert root.kind == "internal"  # given as the enum name SPAN_KIND_INTERNAL
    assert root.attributes["metadata"] == {"tenant": "acme", "tags": ["support", "orders"]}
    assert root.attributes["debug.blob"] == "AAFvaQ=="  # bytes as base64 text
    assert root.attributes["eval_pipeline.run.index"] == 0  # intValue given as a string
    llm = next(s for s in spans if s.span_id == "a100000000000002")
    assert llm.kind == "client"
    doc = next(s for s in spans if s.span_id == "a100000000000004")
    assert doc.attributes["retrieval.documents.0.document.score"] == 0.82


def test_status_and_error_are_read():
    spans = decode_otlp(
        (CHAT / "test_chat_completion_404.otlp.json").read_bytes(), content_type=JSON, source="x"
    ).spans
    assert spans[0].status_code == "error"
    assert "does not exist" in spans[0].status_message


def _only_error(result):
    assert len(result.errors) == 1
    return result.errors[0]


def test_bad_hex_id_rejects_that_span_only():
    body = otlp_json([json_span("zz00000000000001"), json_span("00000000000000b2")])
    result = decode_otlp(body, content_type=JSON, source="batch.json")
    error = _only_error(result)
    assert (error.source, error.span_id, error.field) == (
        "batch.json",
        "zz00000000000001",
        "spanId",
    )
    assert [s.span_id for s in result.spans] == ["00000000000000b2"]
    assert "batch.json: span zz00000000000001: field spanId" in str(error)


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"startTimeUnixNano": "soon"}, "startTimeUnixNano"),
        ({"name": 7}, "name"),
        ({"attributes": {"k": "v"}}, "attributes"),
        ({"attributes": [{"key": "n", "value": {"intValue": "x1"}}]}, "attributes[n]"),
        ({"attributes": [{"key": "b", "value": {"boolValue": "yes"}}]}, "attributes[b]"),
        ({"kind": "SPAN_KIND_SIDEWAYS"}, "kind"),
        ({"traceId": "0af7"}, "traceId"),
    ],
)
def test_wrong_json_types_name_the_field(override, field):
    body = otlp_json([json_span(**override), json_span("00000000000000b2")])
    result = decode_otlp(body, content_type=JSON, source="f.json")
    error = _only_error(result)
    assert error.field == field
    assert error.span_id == "00000000000000a1"
    assert len(result.spans) == 1


def test_oversized_attribute_rejects_the_span_naming_the_attribute():
    big = {"key": "gen_ai.tool.call.result", "value": {"stringValue": "x" * 2000}}
    body = otlp_json([json_span(attributes=[big]), json_span("00000000000000b2")])
    result = decode_otlp(body, content_type=JSON, source="f.json", max_attribute_bytes=1000)
    error = _only_error(result)
    assert error.field == "attributes[gen_ai.tool.call.result]"
    assert "exceeds 1000" in error.message
    assert len(result.spans) == 1


def test_invalid_utf8_in_json_rejects_only_the_span_holding_it():
    good = json.dumps(json_span("00000000000000b2"))
    bad = json.dumps(json_span(name="PLACEHOLDER")).replace("PLACEHOLDER", "caf\\u00e9")
    body = otlp_json([]).replace(
        b'"spans": []', b'"spans": [' + bad.encode() + b", " + good.encode() + b"]"
    )
    body = body.replace(b"caf\\u00e9", b"caf\xe9")  # a Latin-1 byte: invalid UTF-8
    result = decode_otlp(body, content_type=JSON, source="u.json")
    error = _only_error(result)
    assert (error.span_id, error.field, error.message) == (
        "00000000000000a1",
        "name",
        "invalid UTF-8",
    )
    assert [s.span_id for s in result.spans] == ["00000000000000b2"]


def test_unparseable_json_is_one_payload_error():
    result = decode_otlp(b'{"resourceSpans": [', content_type=JSON, source="t.json")
    error = _only_error(result)
    assert error.span_id is None and "invalid JSON" in error.message
    assert result.spans == []


def _protobuf_request(n: int) -> bytes:
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

    spans = [
        Span(
            trace_id=bytes(range(1, 17)),
            span_id=(i + 1).to_bytes(8, "big"),
            name=f"span-{i}",
            kind=1,
        )
        for i in range(n)
    ]
    return ExportTraceServiceRequest(
        resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=spans)])]
    ).SerializeToString()


def test_truncated_protobuf_keeps_the_spans_before_the_cut():
    body = _protobuf_request(5)
    result = decode_otlp(body[:-7], content_type=PROTOBUF, source="cut.pb")
    assert [s.name for s in result.spans] == ["span-0", "span-1", "span-2", "span-3"]
    error = _only_error(result)
    assert (error.source, error.span_id) == ("cut.pb", "0000000000000005")
    assert "truncated" in error.message


def test_invalid_utf8_in_protobuf_names_span_and_field():
    body = _protobuf_request(3).replace(b"span-1", b"span\xff1")
    result = decode_otlp(body, content_type=PROTOBUF, source="bad.pb")
    assert [s.name for s in result.spans] == ["span-0", "span-2"]
    error = _only_error(result)
    assert (error.span_id, error.field) == ("0000000000000002", "name")
    assert "UTF-8" in error.message


def test_unsupported_content_type_is_reported():
    error = _only_error(decode_otlp(b"x", content_type="text/plain", source="r"))
    assert error.field == "content_type"


def _linked_document(link: dict) -> dict:
    span = json_span("00000000000000f1", traceState="vendor=abc", links=[link])
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": []},
                "schemaUrl": "https://opentelemetry.io/schemas/1.36.0",
                "scopeSpans": [
                    {
                        "scope": {"name": "s"},
                        "schemaUrl": "https://opentelemetry.io/schemas/1.37.0",
                        "spans": [span, json_span("00000000000000f2")],
                    }
                ],
            }
        ]
    }


_LINK = {
    "traceId": "0af7651916cd43dd8448eb211c80319d",
    "spanId": "b7ad6b7169203331",
    "traceState": "rojo=1",
    "attributes": [{"key": "reason", "value": {"stringValue": "retry"}}],
}


def test_links_trace_state_and_schema_urls_decode_alike_from_json_and_protobuf():
    document = _linked_document(_LINK)
    for payload, media in (
        (json.dumps(document).encode(), JSON),
        (otlp_protobuf(document), PROTOBUF),
    ):
        result = decode_otlp(payload, content_type=media, source="s")
        assert result.errors == []
        linked, plain = result.spans
        (link,) = linked.links
        assert (link.trace_id, link.span_id, link.trace_state) == (
            "0af7651916cd43dd8448eb211c80319d",
            "b7ad6b7169203331",
            "rojo=1",
        )
        assert link.attributes == {"reason": "retry"}
        assert linked.trace_state == "vendor=abc" and plain.trace_state is None
        assert plain.links == ()
        assert (plain.schema_url, plain.resource_schema_url) == (
            "https://opentelemetry.io/schemas/1.37.0",
            "https://opentelemetry.io/schemas/1.36.0",
        )


def test_a_bad_link_id_rejects_its_span_naming_the_link_and_keeps_the_others():
    document = _linked_document({**_LINK, "spanId": "00ff"})
    result = decode_otlp(json.dumps(document).encode(), content_type=JSON, source="f.json")
    (error,) = result.errors
    assert error.field == "links[0].spanId" and error.span_id == "00000000000000f1"
    assert [s.span_id for s in result.spans] == ["00000000000000f2"]


def test_the_salvage_path_keeps_the_schema_urls_written_after_the_spans():
    good = otlp_protobuf(_linked_document(_LINK))
    # Invalid UTF-8 in the second span's name: the request as a whole does not parse.
    at = good.rfind(b"\x2a\x06chat m")
    broken = good[:at] + b"\x2a\x06chat \xff" + good[at + 8 :]
    result = decode_otlp(broken, content_type=PROTOBUF, source="s")
    assert len(result.spans) == 1 and result.errors
    (kept,) = result.spans
    assert kept.links[0].trace_state == "rojo=1"
    assert kept.schema_url == "https://opentelemetry.io/schemas/1.37.0"
    assert kept.resource_schema_url == "https://opentelemetry.io/schemas/1.36.0"
