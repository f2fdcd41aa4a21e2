"""Hostile input never crashes ingest: each bad span is rejected naming source, span and field.

Contract: values the store cannot hold (times or token counts beyond int64, non-finite or
non-numeric doubles, lone surrogates, non-string scope names, nesting deeper than the parser
takes, a non-integer or negative ``eval_pipeline.run.index``, a build name the file system
cannot hold) become one ``DecodeError`` for that span (or for the payload when nothing of it can
be read); every good span beside it is stored. Each case reproduces a crash seen before the fix.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.store.trace_store import UNASSIGNED, TraceStore

GOOD = "1" * 16
BAD = "2" * 16


def _span(span_id: str, **fields: Any) -> dict[str, Any]:
    span = {
        "traceId": "a" * 32,
        "spanId": span_id,
        "name": "chat m",
        "kind": 3,
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
    }
    span.update(fields)
    return span


def _attr(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"attributes": [{"key": key, "value": value}]}


def _request(spans: list[dict[str, Any]], resource: Any = None, scope: Any = None) -> str:
    scope_spans = {"scope": {"name": "s"} if scope is None else scope, "spans": spans}
    return json.dumps(
        {
            "resourceSpans": [
                {"resource": {"attributes": resource or []}, "scopeSpans": [scope_spans]}
            ]
        }
    )


BAD_SPANS = {
    "end time 2^63": (_span(BAD, endTimeUnixNano=str(2**63)), "endTimeUnixNano"),
    "input tokens 2^64": (
        _span(BAD, **_attr("gen_ai.usage.input_tokens", {"intValue": str(2**64)})),
        "input_tokens",
    ),
    "doubleValue abc": (_span(BAD, **_attr("x", {"doubleValue": "abc"})), "attributes[x]"),
    "doubleValue Infinity": (
        _span(BAD, **_attr("x", {"doubleValue": "-Infinity"})),
        "attributes[x]",
    ),
    "400-digit int": (_span(BAD, **_attr("x", {"intValue": "9" * 400})), "attributes[x]"),
    "run index abc": (
        _span(BAD, **_attr("eval_pipeline.run.index", {"stringValue": "abc"})),
        "eval_pipeline.run.index",
    ),
    "run index negative": (
        _span(BAD, **_attr("eval_pipeline.run.index", {"intValue": "-1"})),
        "eval_pipeline.run.index",
    ),
    "build name too long": (
        # Its own trace: the build of a trace is its root's, so a whole trace goes with it.
        _span(BAD, traceId="b" * 32, **_attr("eval_pipeline.build.id", {"stringValue": "b" * 300})),
        "eval_pipeline.build.id",
    ),
    "lone surrogate in the name": (_span(BAD, name="\ud800"), "name"),
}


@pytest.mark.parametrize("case", sorted(BAD_SPANS))
def test_a_bad_span_is_rejected_by_name_and_its_neighbour_stored(case: str, tmp_path: Path) -> None:
    bad, field = BAD_SPANS[case]
    payload = _request([_span(GOOD), bad]).encode()
    store = TraceStore(tmp_path)
    report = ingest([OtlpRequest(payload, "application/json", "req.json")], store=store)
    assert report.spans_stored == 1 and report.spans_rejected == 1
    (error,) = report.errors
    assert error.source == "req.json" and error.span_id == BAD and field in error.field
    assert [s.span_id for s in store.read_spans(UNASSIGNED)] == [GOOD]


@pytest.mark.parametrize(
    ("resource", "scope", "field"),
    [
        ([{"key": "k\ud800", "value": {"stringValue": "v"}}], None, "resource"),
        ([{"key": "k", "value": {"stringValue": "\udfff"}}], None, "resource"),
        (None, {"name": "\ud800"}, "scope"),
        (None, {"name": 5}, "scope"),
    ],
)
def test_bad_scope_or_resource_rejects_its_spans_not_the_request(
    resource: Any, scope: Any, field: str, tmp_path: Path
) -> None:
    good = json.loads(_request([_span(GOOD)]))
    bad = json.loads(_request([_span(BAD)], resource, scope))
    good["resourceSpans"] += bad["resourceSpans"]
    store = TraceStore(tmp_path)
    report = ingest([OtlpRequest(json.dumps(good).encode(), "application/json", "r")], store=store)
    assert report.spans_stored == 1 and report.spans_rejected == 1
    assert report.errors[0].span_id == BAD and field in report.errors[0].field


def test_protobuf_times_beyond_int64_are_rejected(tmp_path: Path) -> None:
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    for span_id, end in ((GOOD, 2), (BAD, 2**64 - 1)):
        span = spans.add(
            trace_id=bytes.fromhex("a" * 32), span_id=bytes.fromhex(span_id), name="chat m"
        )
        span.start_time_unix_nano, span.end_time_unix_nano = 1, end
    payload = request.SerializeToString()
    store = TraceStore(tmp_path)
    report = ingest([OtlpRequest(payload, "application/x-protobuf", "p")], store=store)
    assert report.spans_stored == 1 and report.errors[0].span_id == BAD
    assert "end_time_unix_nano" in report.errors[0].field


def test_deep_nesting_is_an_error_not_a_crash(tmp_path: Path) -> None:
    deep_messages = "[" * 3000 + "]" * 3000
    body = _request(
        [_span(GOOD), _span(BAD, **_attr("gen_ai.input.messages", {"stringValue": deep_messages}))]
    )
    store = TraceStore(tmp_path)
    report = ingest([OtlpRequest(body.encode(), "application/json", "r")], store=store)
    assert report.spans_stored >= 1
    depth = 100_000
    value = '{"kvlistValue":{"values":[{"key":"k","value":' * depth
    value += '{"stringValue":"x"}' + "}]}}" * depth
    nested = _request([_span(GOOD)]).replace('{"stringValue": "chat"}', value)
    report = ingest([OtlpRequest(nested.encode(), "application/json", "deep")], store=store)
    assert report.errors and report.errors[0].source == "deep"


@pytest.mark.parametrize("name", [{"x": 1}, [1, 2], 5, 1.5, True, ["a"], {}])
def test_a_non_text_scope_name_rejects_that_scopes_spans_alone(name: Any, tmp_path: Path) -> None:
    good = json.loads(_request([_span(GOOD)]))
    bad = json.loads(_request([_span(BAD)], scope={"name": name}))
    good["resourceSpans"] += bad["resourceSpans"]
    store = TraceStore(tmp_path)
    report = ingest([OtlpRequest(json.dumps(good).encode(), "application/json", "r")], store=store)
    assert report.spans_stored == 1 and report.spans_rejected == 1
    (error,) = report.errors
    assert error.span_id == BAD and error.field.endswith("scope.name"), error
    assert "must be a string" in error.message
    assert [s.span_id for s in store.read_spans(UNASSIGNED)] == [GOOD]


@pytest.mark.parametrize("where", ["scope", "resource"])
def test_a_non_text_schema_url_rejects_only_its_spans(where: str, tmp_path: Path) -> None:
    document = json.loads(_request([_span(BAD)]))
    target = document["resourceSpans"][0]
    if where == "scope":
        target = target["scopeSpans"][0]
    target["schemaUrl"] = {"x": 1}
    document["resourceSpans"] += json.loads(_request([_span(GOOD)]))["resourceSpans"]
    store = TraceStore(tmp_path)
    report = ingest(
        [OtlpRequest(json.dumps(document).encode(), "application/json", "r")], store=store
    )
    assert report.spans_stored == 1 and report.spans_rejected == 1
    (error,) = report.errors
    assert error.span_id == BAD and error.field.endswith("schemaUrl"), error
    assert [s.span_id for s in store.read_spans(UNASSIGNED)] == [GOOD]
