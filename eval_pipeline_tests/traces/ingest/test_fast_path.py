"""The ingestion fast path stores exactly what the general path stores.

``traces.fast_path`` goes from a protobuf or JSON span to its redacted store row without the
general path's intermediate objects. These tests hold the two equal, as stored (the Arrow rows
of ``rows_table``) and in their errors, on every OTLP file in ``data/otel`` (as protobuf, and as
the JSON it is), on the benchmark payload, and on hand-made spans for each way off the fast
path, under both shipped redaction policies.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.ingest import make_payload
from eval_pipeline.traces.decode.errors import MAX_ATTRIBUTE_BYTES
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF, decode_otlp
from eval_pipeline.traces.ingest.fast_path import decode_json_rows, decode_rows
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.ingest.span_rows import fast_row, json_row
from eval_pipeline.traces.normalise.messages import clear_parse_cache
from eval_pipeline.traces.normalise.normaliser import normalise_spans
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.store.span_table import rows_table, span_row
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import OTEL, json_span, otlp_json, otlp_protobuf

POLICIES = ("default", "keep-tools")
OTLP_FILES = sorted(p for p in OTEL.rglob("*.otlp.json"))


def _stored(rows: list[Any]) -> list[dict[str, Any]]:
    return rows_table(rows, ["b"] * len(rows), None).to_pylist()


def _general(
    payload: bytes, policy: str, media: str = PROTOBUF
) -> tuple[list[dict[str, Any]], list[str]]:
    clear_parse_cache()
    decoded = decode_otlp(payload, content_type=media, source="s")
    redactor = Redactor(load_policy(policy))
    spans = [redactor.redact(span) for span in normalise_spans(decoded.spans)]
    return _stored([span_row(span) for span in spans]), [str(e) for e in decoded.errors]


def _fast(
    payload: bytes, policy: str, media: str = PROTOBUF
) -> tuple[list[dict[str, Any]], list[str]]:
    clear_parse_cache()
    decode = decode_rows if media == PROTOBUF else decode_json_rows
    batch = decode(payload, "s", MAX_ATTRIBUTE_BYTES, Redactor(load_policy(policy)))
    assert batch is not None
    return _stored(batch.rows), [str(e) for e in batch.errors]


def _assert_same(payload: bytes, policy: str, media: str = PROTOBUF) -> list[dict[str, Any]]:
    fast_rows, fast_errors = _fast(payload, policy, media)
    general_rows, general_errors = _general(payload, policy, media)
    assert fast_errors == general_errors
    assert len(fast_rows) == len(general_rows)
    for fast, general in zip(fast_rows, general_rows, strict=True):
        assert fast == general, fast["span_id"]
    return fast_rows


def test_the_data_has_otlp_files_to_compare():
    assert len(OTLP_FILES) >= 35  # the flat span lists there are not OTLP requests


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("path", OTLP_FILES, ids=lambda p: p.name)
def test_every_otlp_data_file_stores_the_same_rows(path: Path, policy: str):
    document = json.loads(path.read_text())
    try:
        payload = otlp_protobuf(document)
    except Exception as exc:  # a bad-input sample the protobuf JSON mapping rejects
        pytest.skip(f"not expressible as protobuf: {exc}")
    _assert_same(payload, policy)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("path", OTLP_FILES, ids=lambda p: p.name)
def test_every_otlp_json_data_file_stores_the_same_rows(path: Path, policy: str):
    payload = path.read_bytes()
    if decode_json_rows(payload, "s", MAX_ATTRIBUTE_BYTES, Redactor(load_policy())) is None:
        pytest.skip("left to the general decoder as a whole")
    _assert_same(payload, policy, JSON)


def test_every_otlp_json_data_file_takes_the_fast_path():
    redactor = Redactor(load_policy())
    declined = [
        p.name
        for p in OTLP_FILES
        if decode_json_rows(p.read_bytes(), "s", MAX_ATTRIBUTE_BYTES, redactor) is None
    ]
    assert declined == []


@pytest.mark.parametrize("policy", POLICIES)
def test_the_benchmark_payload_stores_the_same_rows(policy: str):
    rows = _assert_same(make_payload(400), policy)
    assert rows[1]["output_messages"].startswith(
        '[{"role":"assistant","parts":[{"type":"tool_call"'
    )


def _request(*spans: dict[str, Any]) -> bytes:
    return otlp_protobuf(
        {
            "resourceSpans": [
                {
                    "resource": {
                        "attributes": [{"key": "service.name", "value": {"stringValue": "t"}}]
                    },
                    "scopeSpans": [{"scope": {"name": "t"}, "spans": list(spans)}],
                }
            ]
        }
    )


def _attrs(**values: Any) -> list[dict[str, Any]]:
    out = []
    for key, value in values.items():
        key = key.replace("__", ".")
        if isinstance(value, bool):
            out.append({"key": key, "value": {"boolValue": value}})
        elif isinstance(value, int):
            out.append({"key": key, "value": {"intValue": str(value)}})
        elif isinstance(value, float):
            out.append({"key": key, "value": {"doubleValue": value}})
        elif isinstance(value, list):
            out.append(
                {
                    "key": key,
                    "value": {"arrayValue": {"values": [{"stringValue": v} for v in value]}},
                }
            )
        else:
            out.append({"key": key, "value": {"stringValue": value}})
    return out


_CALL = {"type": "tool_call", "id": "c1", "name": "send_email", "arguments": {"to": "a@b.io"}}
_EDGE_SPANS = {
    "openai-style outputs": _attrs(
        gen_ai__operation__name="chat",
        gen_ai__output__messages=json.dumps(
            [{"role": "assistant", "content": "mail me at x@y.org", "tool_calls": []}]
        ),
    ),
    "tool response in outputs": _attrs(
        gen_ai__operation__name="chat",
        gen_ai__output__messages=json.dumps(
            [
                {"role": "assistant", "parts": [_CALL]},
                {
                    "role": "tool",
                    "parts": [{"type": "tool_call_response", "id": "c1", "response": "ok"}],
                },
            ]
        ),
    ),
    "named tool message with finish reason": _attrs(
        gen_ai__operation__name="chat",
        gen_ai__output__messages=json.dumps(
            [
                {
                    "role": "tool",
                    "name": "x",
                    "parts": [{"type": "text", "content": "card 4111 1111 1111 1111"}],
                },
                {"role": "assistant", "name": "bot", "finish_reason": "stop", "parts": [_CALL]},
            ]
        ),
    ),
    "non-string role": _attrs(
        gen_ai__operation__name="chat",
        gen_ai__output__messages=json.dumps([{"role": 7, "parts": []}]),
    ),
    "outputs as plain text": _attrs(
        gen_ai__operation__name="chat", gen_ai__output__messages="hi +44 20 7946 0958"
    ),
    "non-string attribute values": _attrs(
        gen_ai__operation__name="chat",
        gen_ai__request__temperature=0.5,
        gen_ai__response__finish_reasons=["stop"],
        gen_ai__agent__name=True,
        gen_ai__usage__input_tokens="12",
        note="call +1 415 555 0100",
    ),
    "tool with kept and dropped payloads": _attrs(
        gen_ai__operation__name="execute_tool",
        gen_ai__tool__name="lookup_order",
        gen_ai__tool__call__arguments='{"email": "c@d.com", "n": 1}',
        gen_ai__tool__call__result="order for c@d.com",
    ),
    "renamed usage keys": _attrs(gen_ai__operation__name="chat", gen_ai__usage__prompt_tokens=3),
    "old system key": _attrs(gen_ai__operation__name="chat", gen_ai__system="vertex_ai"),
    "openinference": _attrs(openinference__span__kind="LLM", llm__token_count__prompt=3),
    "traceloop": _attrs(traceloop__span__kind="tool", traceloop__entity__name="lookup"),
    "operation from the span name": _attrs(gen_ai__agent__name="A"),
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", sorted(_EDGE_SPANS))
def test_spans_off_the_common_shape_store_the_same_rows(case: str, policy: str):
    span = json_span("00000000000000a1", attributes=_EDGE_SPANS[case], name="invoke_agent A")
    _assert_same(_request(span), policy)
    _assert_same(otlp_json([span]), policy, JSON)


_BAD_JSON_SPANS = {
    "unknown kind": {"kind": "SPAN_KIND_BOGUS"},
    "short trace id": {"traceId": "abc"},
    "attributes not a list": {"attributes": {"a": 1}},
    "attribute without a key": {"attributes": [{"value": {"stringValue": "x"}}]},
    "int value that is not one": {"attributes": [{"key": "n", "value": {"intValue": "x1"}}]},
    "events not a list": {"events": {"name": "e"}},
    "event without a time": {"events": [{"name": "e", "timeUnixNano": "soon"}]},
    "negative start": {"startTimeUnixNano": "-5"},
    "status not an object": {"status": "ok"},
    "enum by name": {"kind": "SPAN_KIND_SERVER", "status": {"code": "STATUS_CODE_ERROR"}},
    "snake case keys": {"trace_id": "0af7651916cd43dd8448eb211c80319c", "start_time_unix_nano": 7},
}


@pytest.mark.parametrize("case", sorted(_BAD_JSON_SPANS))
def test_json_spans_with_bad_or_unusual_fields_match_the_general_path(case: str):
    odd = json_span("00000000000000e1", **_BAD_JSON_SPANS[case])
    rows = _assert_same(otlp_json([odd, json_span("00000000000000e2")]), "default", JSON)
    assert "00000000000000e2" in [row["span_id"] for row in rows]


def test_events_invalid_fields_and_errors_match_the_general_path():
    events = json_span(
        "00000000000000b1",
        events=[
            {
                "timeUnixNano": "5",
                "name": "gen_ai.user.message",
                "attributes": [{"key": "content", "value": {"stringValue": "hi"}}],
            }
        ],
    )
    bad_parent = json_span("00000000000000b2", parentSpanId="00ff")
    huge = json_span(
        "00000000000000b3", attributes=[{"key": "x", "value": {"stringValue": "y" * 2_000_001}}]
    )
    zero = json_span("0000000000000000")
    good = json_span("00000000000000b4")
    rows = _assert_same(_request(events, bad_parent, huge, zero, good), "default")
    assert [row["span_id"] for row in rows] == ["00000000000000b1", "00000000000000b4"]


def test_the_fast_path_declines_what_it_does_not_handle():
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    redactor = Redactor(load_policy())
    request = ExportTraceServiceRequest.FromString(
        _request(
            json_span("00000000000000c1", attributes=_EDGE_SPANS["openinference"]),
            json_span("00000000000000c2"),
        )
    )
    first, second = request.resource_spans[0].scope_spans[0].spans
    assert fast_row(first, {}, None, MAX_ATTRIBUTE_BYTES, redactor) is None
    assert fast_row(second, {}, None, MAX_ATTRIBUTE_BYTES, redactor) is not None


def test_an_unparseable_request_is_salvaged_by_the_general_decoder(tmp_path):
    good = _request(json_span("00000000000000d1"))
    assert decode_rows(good[:-3], "s", MAX_ATTRIBUTE_BYTES, Redactor(load_policy())) is None
    report = ingest(
        [OtlpRequest(good[:-3], PROTOBUF, "s")], store=TraceStore(tmp_path), day="2026-11-30"
    )
    assert any("truncated" in str(error) for error in report.errors)
    assert report.spans_stored == 0  # the only span is the cut one; nothing half-stored


def test_the_lifted_attributes_that_leave_the_fast_path_are_the_old_system_and_content_keys():
    # fast_row checks the attributes it keeps against GENERAL_ONLY, and these apart.
    from eval_pipeline.traces import semconv as sc
    from eval_pipeline.traces.ingest.genai_row import _GENERAL_LIFTED, GENERAL_ONLY
    from eval_pipeline.traces.normalise.genai import LIFTED

    assert {sc.SYSTEM} == GENERAL_ONLY & LIFTED
    assert {sc.SYSTEM, sc.PROMPT, sc.COMPLETION} == _GENERAL_LIFTED == _GENERAL_LIFTED & LIFTED


def test_spans_with_links_trace_state_and_schema_urls_take_the_fast_path():
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    from eval_pipeline.traces.decode.otlp_protobuf import schema_urls

    payload = (OTEL / "sdk_links_schema" / "agent_run_links_tracestate.otlp.pb").read_bytes()
    redactor = Redactor(load_policy())
    request = ExportTraceServiceRequest.FromString(payload)
    taken = [
        fast_row(span, {}, None, MAX_ATTRIBUTE_BYTES, redactor, None, schema_urls(rs, ss))
        for rs in request.resource_spans
        for ss in rs.scope_spans
        for span in ss.spans
    ]
    assert len(taken) == 3 and None not in taken
    assert any(row[-4] for row in taken)  # the root's link, in the row the fast path wrote
    for policy in POLICIES:
        _assert_same(payload, policy)


def test_legacy_content_attributes_and_the_details_event_leave_the_fast_path():
    legacy = json_span("00000000000000c3", attributes=_attrs(gen_ai__prompt="hi"))
    details = json_span(
        "00000000000000c4",
        events=[{"name": "gen_ai.client.inference.operation.details", "timeUnixNano": "1"}],
    )
    redactor = Redactor(load_policy())
    for span in (legacy, details):
        assert json_row(span, {}, None, MAX_ATTRIBUTE_BYTES, redactor) is None
        _assert_same(_request(span), "default")


def test_a_bad_link_id_gives_the_same_error_on_both_paths():
    bad = json_span("00000000000000c5", links=[{"traceId": "ab" * 16, "spanId": "00ff"}])
    _assert_same(otlp_json([bad, json_span("00000000000000c6")]), "default", JSON)
