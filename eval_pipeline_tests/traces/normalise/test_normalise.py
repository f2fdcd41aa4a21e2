"""Normalisation contract.

Normalisation contract: spans of every dialect and convention version land on the pinned
GenAI fields, record the dialect and version they arrived in, keep unknown attributes, and
normalising twice changes nothing.
"""

import json

from eval_pipeline.traces.decode.otlp import JSON, decode_otlp
from eval_pipeline.traces.model import Operation
from eval_pipeline.traces.normalise.messages import tool_call_from_repr
from eval_pipeline.traces.normalise.normaliser import normalise_span, normalise_spans
from eval_pipeline.traces.semconv import TARGET_CONVENTION_VERSION
from eval_pipeline_tests.traces.builders import AGENTS, SYNTHETIC


def _spans(path):
    result = decode_otlp(path.read_bytes(), content_type=JSON, source=str(path))
    assert result.errors == []
    return {s.span_id: s for s in normalise_spans(result.spans)}


def test_target_version_is_pinned_once():
    assert TARGET_CONVENTION_VERSION == "1.41.0"


def test_openai_agents_quirks_are_repaired():
    spans = _spans(AGENTS / "test_agent_with_function_tool_spans.otlp.json")
    chat = spans["1fad5fe3c9ed44a5"]
    assert chat.operation == Operation.CHAT
    assert (chat.provider, chat.model) == ("openai", "gpt-4.1-2025-04-14")
    assert (chat.input_tokens, chat.output_tokens) == (72, 15)
    # the tool call written as a Python repr in the text becomes a real tool_call part
    assert chat.output_messages[0].tool_calls == (
        {
            "type": "tool_call",
            "id": "call_B8tgP9l0UOJj9DF47eAb54Om",
            "name": "get_weather",
            "arguments": {"city": "London"},
        },
    )
    assert chat.output_messages[0].text == ""
    tool = spans["7d5ae948821d5e63"]
    assert (tool.operation, tool.tool_name) == (Operation.EXECUTE_TOOL, "get_weather")
    assert tool.tool_arguments == {"city": "London"}
    assert tool.tool_result == "It's cloudy with 15°C"
    assert spans["7f797f11a6bc502b"].operation == Operation.UNKNOWN  # spans named "unknown"
    # The version is the one the scope's schema URL declares (openai-agents-v2 0.1.0 declares
    # 1.28.0 while writing 1.37 names: a declared version is the producer's claim).
    assert chat.schema_url == "https://opentelemetry.io/schemas/1.28.0"
    assert chat.dialect == "otel-genai" and chat.convention_version == "1.28.0"
    # lifted attributes leave `attributes`; unknown ones stay
    assert "gen_ai.usage.input_tokens" not in chat.attributes
    assert chat.attributes["gen_ai.response.id"].startswith("resp_")
    assert chat.attributes["server.address"] == "api.openai.com"


def test_pre_137_events_and_renamed_attributes():
    spans = _spans(SYNTHETIC / "genai_pre137_events.otlp.json")
    first = spans["d100000000000002"]
    assert first.provider == "azure.ai.openai"  # gen_ai.system az.ai.openai, renamed
    assert (first.input_tokens, first.output_tokens) == (40, 18)  # prompt/completion_tokens
    assert first.attributes["gen_ai.request.seed"] == 7  # gen_ai.openai.request.seed
    assert [m.role for m in first.input_messages] == ["system", "user"]
    assert first.output_messages[0].tool_calls[0]["arguments"] == {"city": "Paris"}
    assert first.output_messages[0].finish_reason == "tool_calls"
    assert [e.name for e in first.events] == ["exception.note"]  # message events were lifted
    assert first.convention_version == "<1.27"
    second = spans["d100000000000004"]
    assert [m.role for m in second.input_messages] == ["user", "assistant", "tool"]
    assert second.input_messages[2].parts[0] == {
        "type": "tool_call_response",
        "id": "call_old_1",
        "response": "rain, 12 C",
    }
    assert second.output_messages[0].text == "It is raining in Paris, 12 C."
    legacy = spans["e100000000000001"]
    assert legacy.provider == "gcp.vertex_ai"
    assert legacy.input_messages[0].text == "Say hi"
    assert legacy.output_messages[0].text == "Hi!"


def test_openinference_flattened_keys():
    spans = _spans(SYNTHETIC / "openinference_support_session.otlp.json")
    llm = spans["a100000000000002"]
    assert llm.dialect == "openinference" and llm.convention_version == "0.1"
    assert (llm.operation, llm.provider, llm.model) == ("chat", "openai", "gpt-4o-mini")
    assert (llm.input_tokens, llm.output_tokens) == (58, 17)
    assert [m.role for m in llm.input_messages] == ["system", "user"]
    assert llm.output_messages[0].tool_calls[0]["name"] == "lookup_order"
    assert llm.attributes["llm.invocation_parameters"] == '{"temperature": 0}'
    tool = spans["a100000000000003"]
    assert (tool.tool_name, tool.tool_call_id) == ("lookup_order", "call_oi_1")
    assert tool.tool_result["status"] == "shipped"
    agent = spans["a100000000000001"]
    assert (agent.operation, agent.agent_name, agent.conversation_id) == (
        Operation.INVOKE_AGENT,
        "SupportAgent",
        "sess-42",
    )
    assert spans["a100000000000005"].output_messages[0].text.startswith("Your order W1001")
    docs = spans["a100000000000004"].attributes["gen_ai.retrieval.documents"]
    assert [d["id"] for d in docs] == ["kb-7", "kb-9"]


def test_traceloop_style():
    spans = _spans(SYNTHETIC / "traceloop_handoff_billing.otlp.json")
    assert spans["c100000000000001"].operation == Operation.INVOKE_AGENT
    assert spans["c100000000000001"].agent_name == "Triage Agent"
    handoff = spans["c100000000000003"]
    assert handoff.operation == Operation.HANDOFF
    assert handoff.attributes["gen_ai.handoff.to_agent"] == "Billing Agent"
    tool = spans["c100000000000006"]
    assert (tool.tool_name, tool.tool_arguments) == ("get_invoice", {"invoice_id": "INV-1001"})
    assert tool.tool_result == {"invoice_id": "INV-1001", "charges": 2, "amount": 49.0}
    llm = spans["c100000000000005"]
    assert (llm.operation, llm.input_tokens, llm.output_tokens) == ("chat", 130, 20)
    assert llm.dialect == "traceloop"
    assert spans["c100000000000002"].attributes["llm.usage.total_tokens"] == 107  # kept


def test_normalising_twice_is_a_no_op():
    spans = _spans(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    for span in spans.values():
        assert normalise_span(span) is span


def test_repr_with_escapes_and_non_repr_text():
    text = (
        "ResponseFunctionToolCall(arguments="
        + repr('{"q":"it\'s \\"x\\""}')
        + ", call_id='c1', name='search', type='function_call')"
    )
    assert tool_call_from_repr(text) == {
        "type": "tool_call",
        "id": "c1",
        "name": "search",
        "arguments": {"q": 'it\'s "x"'},
    }
    assert tool_call_from_repr("The answer is ResponseFunctionToolCall(") is None


def test_an_unknown_operation_name_is_kept_verbatim_with_its_category_beside(tmp_path):
    from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
    from eval_pipeline.traces.store.trace_store import UNASSIGNED, TraceStore
    from eval_pipeline_tests.traces.builders import json_span, otlp_json

    payload = otlp_json(
        [
            json_span(
                name="rerank cohere",
                attributes=[{"key": "gen_ai.operation.name", "value": {"stringValue": "rerank"}}],
            )
        ]
    )
    (span,) = normalise_spans(decode_otlp(payload, content_type=JSON, source="t").spans)
    assert span.operation == "rerank" and span.operation_category == Operation.UNKNOWN
    chat = normalise_span(span.__class__(**{**span.__dict__, "operation": Operation.CHAT}))
    assert chat.operation_category == Operation.CHAT
    store = TraceStore(tmp_path)
    ingest([OtlpRequest(payload, JSON, "t")], store=store)  # ingest agrees
    (stored,) = store.read_spans(UNASSIGNED)
    assert stored.operation == "rerank"


def _raw(**fields):
    from eval_pipeline.traces.model import Span

    fields.setdefault("name", "chat m")
    return Span(
        trace_id="0af7651916cd43dd8448eb211c80319c",
        span_id="00000000000000a1",
        parent_span_id=None,
        **fields,
    )


def test_pre_128_prompt_and_completion_span_attributes_become_messages():
    span = normalise_span(
        _raw(
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.prompt": json.dumps([{"role": "user", "content": "Hi there"}]),
                "gen_ai.completion": "Hello!",
            }
        )
    )
    assert [(m.role, m.text) for m in span.input_messages] == [("user", "Hi there")]
    assert [(m.role, m.text) for m in span.output_messages] == [("assistant", "Hello!")]
    assert "gen_ai.prompt" not in span.attributes and span.convention_version == "<1.28"


def test_indexed_prompts_keep_an_explicit_operation_name():
    span = normalise_span(
        _raw(
            name="litellm_request",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.prompt.0.role": "user",
                "gen_ai.prompt.0.content": "Hi",
                "gen_ai.completion.0.content": "Hello",
            },
        )
    )
    assert span.operation == Operation.CHAT
    assert [m.text for m in span.input_messages + span.output_messages] == ["Hi", "Hello"]


def test_the_operation_details_event_with_structured_values_is_lifted():
    from eval_pipeline.traces.model import SpanEvent

    details = SpanEvent(
        "gen_ai.client.inference.operation.details",
        5,
        {
            "gen_ai.input.messages": [
                {"role": "user", "parts": [{"type": "text", "content": "q"}]}
            ],
            "gen_ai.output.messages": [
                {"role": "assistant", "parts": [{"type": "text", "content": "a"}]}
            ],
            "gen_ai.request.model": "from-event",
        },
    )
    other = SpanEvent("exception", 6, {"exception.type": "E"})
    span = normalise_span(
        _raw(
            attributes={"gen_ai.operation.name": "chat", "gen_ai.request.model": "own"},
            events=(details, other),
        )
    )
    assert [m.text for m in span.input_messages] == ["q"]
    assert [m.text for m in span.output_messages] == ["a"]
    assert span.model == "own"  # the span's own attributes win over the event's
    assert span.events == (other,)


def test_the_convention_version_comes_from_the_schema_url_when_it_names_one():
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai"}
    assert normalise_span(_raw(attributes=attributes)).convention_version == "<1.37"
    declared = _raw(attributes=attributes, schema_url="https://opentelemetry.io/schemas/1.30.0")
    assert normalise_span(declared).convention_version == "1.30.0"
    vendor = _raw(attributes=attributes, schema_url="https://example.com/schemas/7")
    assert normalise_span(vendor).convention_version == "<1.37"
