"""The OTLP/HTTP receiver: real exporter in, stored spans out, partial success on bad spans.

Contract: spans exported by the OpenTelemetry SDK's own OTLP/HTTP exporter to ``POST
/v1/traces`` on a loopback port are stored (under ``production`` when their root names no
build) before the exporter's request is acknowledged; a JSON request with one bad span stores
the good ones and answers ``partial_success`` naming the bad span; an undecodable body is 400.
Requests go through the one ingest function: the report handed to ``on_stored`` names the
request's incomplete traces, and personal data is stored as tokens.
"""

import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.http_receiver import make_app
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.conftest import DATA_DIR


@pytest.fixture
def receiver() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            make_app(current_home().ensure().store),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def test_sdk_exporter_spans_are_stored_before_the_ack(receiver: str) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "agent"}))
    exporter = OTLPSpanExporter(endpoint=f"{receiver}/v1/traces", timeout=10)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    with (
        tracer.start_as_current_span(
            "invoke_agent support",
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"},
        ),
        tracer.start_as_current_span(
            "execute_tool lookup",
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"},
        ),
    ):
        pass
    provider.shutdown()  # SimpleSpanProcessor exported synchronously: both requests acked
    runs = TraceStore(current_home().store).runs(PRODUCTION)
    assert len(runs) == 1 and runs[0].root_agent == "support"
    assert runs[0].tool_names == ("lookup",)


def test_bad_span_gets_partial_success_and_good_spans_are_kept(receiver: str) -> None:
    document = json.loads(
        (
            DATA_DIR
            / "otel"
            / "openai_agents__otel_contrib_instrumentation"
            / "test_agent_with_function_tool_spans.otlp.json"
        ).read_text()
    )
    spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[0]["spanId"] = "not-hex"
    reply = httpx.post(f"{receiver}/v1/traces", json=document, timeout=10)
    assert reply.status_code == 200
    partial = reply.json()["partialSuccess"]
    assert int(partial["rejectedSpans"]) == 1 and "not-hex" in partial["errorMessage"]
    stored = TraceStore(current_home().store).read_spans(PRODUCTION)
    assert len(stored) == len(spans) - 1
    broken = httpx.post(
        f"{receiver}/v1/traces",
        content=b"\x0a\xff\xff",
        headers={"content-type": "application/x-protobuf"},
        timeout=10,
    )
    assert broken.status_code == 400


def test_the_stored_report_names_incomplete_traces_and_data_is_redacted() -> None:
    from starlette.testclient import TestClient

    from eval_pipeline.traces.ingest.report import IngestReport

    reports: list[IngestReport] = []
    chat_only = (
        DATA_DIR
        / "otel"
        / "openai_chat__otel_contrib_openai_v2"
        / "test_chat_completion_404.otlp.json"
    )
    document = json.loads(chat_only.read_text())
    document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"].append(
        {"key": "user.note", "value": {"stringValue": "write to ada@example.com"}}
    )
    app = make_app(current_home().ensure().store, on_stored=reports.append)
    with TestClient(app) as client:
        assert client.post("/v1/traces", json=document).status_code == 200
    (report,) = reports
    (reasons,) = report.incomplete.values()
    assert reasons[0] == "no invoke_agent span: the trace has no agent run root"
    (span,) = TraceStore(current_home().store).read_spans(PRODUCTION)
    assert str(span.attributes["user.note"]).startswith("write to [EMAIL:")


def test_hostile_spans_never_give_500_and_the_good_span_is_stored() -> None:
    from starlette.testclient import TestClient

    good = {
        "traceId": "a" * 32,
        "spanId": "1" * 16,
        "name": "chat m",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
    }
    bad = {**good, "spanId": "2" * 16, "endTimeUnixNano": str(2**63)}
    document = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": 5}, "spans": [good]}]}]}
    document["resourceSpans"].append(
        {"scopeSpans": [{"spans": [good | {"spanId": "3" * 16}, bad]}]}
    )
    app = make_app(current_home().ensure().store)
    with TestClient(app) as client:
        reply = client.post("/v1/traces", json=document)
        assert reply.status_code == 200
        partial = reply.json()["partialSuccess"]
        assert int(partial["rejectedSpans"]) == 2
        assert "2222222222222222" in partial["errorMessage"] and "scope" in partial["errorMessage"]
        stored = TraceStore(current_home().store).read_spans(PRODUCTION)
        assert [s.span_id for s in stored] == ["3" * 16]
        deep = b'{"resourceSpans":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
        assert (
            client.post(
                "/v1/traces", content=deep, headers={"content-type": "application/json"}
            ).status_code
            == 400
        )


@pytest.mark.parametrize("name", [{"x": 1}, ["a", "b"]])
def test_an_object_or_array_scope_name_rejects_its_spans_not_the_request(name: object) -> None:
    from starlette.testclient import TestClient

    good = {
        "traceId": "a" * 32,
        "spanId": "1" * 16,
        "name": "chat m",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
    }
    scopes = [
        {"scope": {"name": "good"}, "spans": [good]},
        {"scope": {"name": name}, "spans": [good | {"spanId": "2" * 16}]},
    ]
    document = {"resourceSpans": [{"scopeSpans": scopes}]}
    with TestClient(make_app(current_home().ensure().store)) as client:
        reply = client.post("/v1/traces", json=document)
    assert reply.status_code == 200, reply.content
    partial = reply.json()["partialSuccess"]
    assert int(partial["rejectedSpans"]) == 1
    assert "2222222222222222" in partial["errorMessage"]
    assert "scope.name" in partial["errorMessage"]
    stored = TraceStore(current_home().store).read_spans(PRODUCTION)
    assert [s.span_id for s in stored] == ["1" * 16]
