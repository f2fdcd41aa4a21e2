"""The other forms producers write, each ingested from a file shaped as the producer writes it.

- OpenLLMetry's legacy content attributes (``gen_ai.prompt.{i}.*`` / ``gen_ai.completion.{i}.*``
  with tool calls inside), written by ``opentelemetry-instrumentation-openai`` 0.47.5 itself
  (``data/otel/openllmetry_openai``), and the same conversation from 0.62.4, which writes the
  1.37+ message attributes instead: both give the same normalised messages.
- The ``gen_ai.client.inference.operation.details`` event carrying an inference's content.
- Span links, trace state and schema URLs, written by the OTel SDK and its OTLP encoder, through
  files and through the receiver: kept, stored, returned on read, and scanned for personal data.
"""

import json
from pathlib import Path

from starlette.testclient import TestClient

from eval_pipeline.importers.traces.files import ingest_files
from eval_pipeline.realtime.receiver.http_receiver import make_app
from eval_pipeline.traces.decode.otlp import PROTOBUF
from eval_pipeline.traces.model import Operation, Span
from eval_pipeline.traces.redact.redactor import load_policy
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import OTEL

OPENLLMETRY = OTEL / "openllmetry_openai"
SDK = OTEL / "sdk_links_schema"
KEEP_TOOLS = load_policy("keep-tools")


def _spans(store: TraceStore) -> list[Span]:
    spans = [s for b in store.builds() for s in store.read_spans(b)]
    return sorted(spans, key=lambda s: (s.start_time_unix_nano, s.span_id))


def _ingested(tmp_path: Path, path: Path) -> list[Span]:
    store = TraceStore(tmp_path / path.name)
    report = ingest_files([path], store=store, policy=KEEP_TOOLS)
    assert report.ingest.errors == []
    return _spans(store)


def test_openllmetry_legacy_attributes_become_messages_with_their_tool_calls(tmp_path):
    for name in ("chat_tool_calls_v0.47.5.otlp.pb", "chat_tool_calls_v0.47.5.otlp.json"):
        first, second = _ingested(tmp_path, OPENLLMETRY / name)
        assert (first.operation, first.provider, first.model) == (
            Operation.CHAT,
            "openai",
            "gpt-4o-mini-2024-07-18",
        )
        assert (first.input_tokens, first.output_tokens) == (61, 15)
        assert [m.role for m in first.input_messages] == ["system", "user"]
        assert first.input_messages[1].text == "Weather in Paris?"  # JSON content parts
        (requested,) = first.output_messages
        assert requested.finish_reason == "tool_calls"
        assert requested.tool_calls == (
            {
                "type": "tool_call",
                "id": "call_w1",
                "name": "get_weather",
                "arguments": {"city": "Paris"},
            },
        )
        assert [m.role for m in second.input_messages] == ["system", "user", "assistant", "tool"]
        assert second.input_messages[2].tool_calls == requested.tool_calls
        assert second.input_messages[3].parts == (
            {"type": "tool_call_response", "id": "call_w1", "response": {"temp_c": 18}},
        )
        assert second.output_messages[0].text == "It is 18°C and sunny in Paris."
        for span in (first, second):
            assert span.dialect == "traceloop"
            assert not [
                k for k in span.attributes if k.startswith(("gen_ai.prompt", "gen_ai.completion"))
            ]


def test_openllmetry_old_and_new_versions_give_the_same_conversation(tmp_path):
    old = _ingested(tmp_path, OPENLLMETRY / "chat_tool_calls_v0.47.5.otlp.json")
    new = _ingested(tmp_path, OPENLLMETRY / "chat_tool_calls_v0.62.4.otlp.json")
    for before, after in zip(old, new, strict=True):
        assert [m.role for m in after.input_messages] == [m.role for m in before.input_messages]
        assert [m.text for m in after.input_messages] == [m.text for m in before.input_messages]
        assert [m.tool_calls for m in after.output_messages] == [
            m.tool_calls for m in before.output_messages
        ]
        assert [m.text for m in after.output_messages] == [m.text for m in before.output_messages]
        assert (after.input_tokens, after.output_tokens) == (
            before.input_tokens,
            before.output_tokens,
        )


def test_the_operation_details_event_is_lifted_into_the_span(tmp_path):
    for name in ("chat_operation_details_event.otlp.json", "chat_operation_details_event.otlp.pb"):
        (chat,) = _ingested(tmp_path, SDK / name)
        assert chat.events == ()  # lifted, not kept as an event
        assert [(m.role, m.text) for m in chat.input_messages] == [("user", "Where is order A-17?")]
        assert [(m.text, m.finish_reason) for m in chat.output_messages] == [
            ("Order A-17 ships tomorrow.", "stop")
        ]
        assert (chat.model, chat.input_tokens, chat.output_tokens) == ("gpt-4.1-2025-04-14", 31, 8)
        assert json.loads(chat.attributes["gen_ai.system_instructions"]) == [
            {"type": "text", "content": "You are a support agent."}
        ]
        assert "gen_ai.tool.definitions" in chat.attributes
        assert chat.attributes["gen_ai.response.id"] == "chatcmpl-17"
        assert chat.convention_version == "1.37.0"  # the scope's schema URL


def _assert_links_state_and_schemas(spans: list[Span]) -> None:
    by_name = {s.name: s for s in spans}
    root = by_name["invoke_agent support"]
    (link,) = root.links
    assert (link.trace_id, link.span_id) == ("5a1e5a1e5a1e5a1e5a1e5a1e5a1e0000", "00000000000a0001")
    assert link.attributes["link.reason"] == "resumed_conversation"
    assert link.attributes["customer.email"].startswith("[EMAIL:")  # scanned like the rest
    assert "jane.doe" not in json.dumps(link.attributes)
    for span in spans:
        assert span.trace_state == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
        assert span.resource_schema_url == "https://opentelemetry.io/schemas/1.37.0"
    agent_scope = "https://opentelemetry.io/schemas/gen-ai-dev/1.42.0-dev"
    assert root.schema_url == by_name["chat gpt-4.1"].schema_url == agent_scope
    assert root.convention_version == "gen-ai-dev/1.42.0-dev"
    tool = by_name["execute_tool lookup_order"]
    assert tool.schema_url is None and tool.convention_version == "1.37.0"  # the resource's
    assert by_name["chat gpt-4.1"].links == ()


def test_links_trace_state_and_schema_urls_are_kept_from_files(tmp_path):
    for name in ("agent_run_links_tracestate.otlp.pb", "agent_run_links_tracestate.otlp.json"):
        store = TraceStore(tmp_path / name)
        assert ingest_files([SDK / name], store=store).ingest.errors == []
        _assert_links_state_and_schemas(_spans(store))
        found = store.find_trace("5a1e5a1e5a1e5a1e5a1e5a1e5a1e0001")
        assert found is not None
        _assert_links_state_and_schemas(found[1])


def test_links_trace_state_and_schema_urls_are_kept_through_the_receiver(tmp_path):
    with TestClient(make_app(tmp_path)) as client:
        reply = client.post(
            "/v1/traces",
            content=(SDK / "agent_run_links_tracestate.otlp.pb").read_bytes(),
            headers={"content-type": PROTOBUF},
        )
        assert reply.status_code == 200, reply.text
    _assert_links_state_and_schemas(_spans(TraceStore(tmp_path)))


def test_openllmetry_legacy_attributes_are_lifted_through_the_receiver(tmp_path):
    with TestClient(make_app(tmp_path, policy=KEEP_TOOLS)) as client:
        reply = client.post(
            "/v1/traces",
            content=(OPENLLMETRY / "chat_tool_calls_v0.47.5.otlp.pb").read_bytes(),
            headers={"content-type": PROTOBUF},
        )
        assert reply.status_code == 200, reply.text
    received = _spans(TraceStore(tmp_path))
    from_file = _ingested(tmp_path / "file", OPENLLMETRY / "chat_tool_calls_v0.47.5.otlp.pb")
    assert [s.input_messages for s in received] == [s.input_messages for s in from_file]
    assert [s.output_messages for s in received] == [s.output_messages for s in from_file]
    assert received[0].output_messages[0].tool_calls[0]["name"] == "get_weather"
