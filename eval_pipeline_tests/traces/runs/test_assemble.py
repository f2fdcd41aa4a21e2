"""Run assembly contract.

Run assembly contract: the real samples yield the runs, ordered tool calls (matched to the
model's requests), hand-offs and final answers their own data records; assembly is robust to
out-of-order, duplicate, orphaned and late spans and to several roots; runs group into
sessions by conversation id.
"""

import json
import random

import pytest

from eval_pipeline.traces.decode.otlp import JSON, decode_otlp
from eval_pipeline.traces.model import Operation
from eval_pipeline.traces.normalise.normaliser import normalise_spans
from eval_pipeline.traces.runs.assemble import assemble_runs, group_sessions
from eval_pipeline_tests.traces.builders import (
    AGENTS,
    SYNTHETIC,
    assistant,
    make_span,
    tool_call,
)

SUMMARY = json.loads((AGENTS / "_replay_summary.json").read_text())


def _runs(path):
    return assemble_runs(
        normalise_spans(decode_otlp(path.read_bytes(), content_type=JSON, source=str(path)).spans)
    )


def _expected_from_flat(name):
    """Tool names, agents and hand-offs as the flat export of the same spans records them."""
    flat = json.loads((AGENTS / f"{name}.spans_flat.json").read_text())
    flat.sort(key=lambda s: s["start_time_unix_nano"])
    tools = [
        s["attributes"]["gen_ai.tool.name"]
        for s in flat
        if s["attributes"].get("gen_ai.operation.name") == "execute_tool"
    ]
    agents = [
        s["attributes"]["gen_ai.agent.name"] for s in flat if s["name"].startswith("invoke_agent ")
    ]
    handoffs = [
        s["attributes"]["gen_ai.handoff.to_agent"]
        for s in flat
        if s["attributes"].get("gen_ai.operation.name") == "agent_handoff"
    ]
    return tools, agents, handoffs


@pytest.mark.parametrize("name", sorted(SUMMARY), ids=str)
def test_real_agent_runs_match_their_recorded_data(name):
    (run,) = _runs(AGENTS / f"{name}.otlp.json")
    tools, agents, handoffs = _expected_from_flat(name)
    assert run.complete, run.completeness_reasons
    assert list(run.tool_names) == tools
    assert run.root_agent == agents[0]
    assert [h.to_agent for h in run.handoffs] == handoffs
    # the replay summary keeps the first 300 characters of the agent's final output
    assert run.final_answer is not None
    assert run.final_answer.startswith(SUMMARY[name]["final_output"])
    assert len(run.spans) == SUMMARY[name]["n_spans"]


def test_tool_calls_are_matched_to_requests_and_attributed_to_the_enclosing_agent():
    (run,) = _runs(AGENTS / "test_router_analytics_complete_workflow.otlp.json")
    assert run.tool_names == ("analyze_data", "process_results", "generate_report")
    for call in run.tool_calls:
        requester = run.span(call.requested_by_span_id)
        assert requester is not None and requester.operation == Operation.CHAT
        assert call.call_id in {p["id"] for p in requester.output_messages[0].tool_calls}
        # the chat/tool spans say "OpenAI Agent"; the enclosing invoke_agent is trusted
        assert call.agent_name == "Analytics Agent"
    assert run.tool_calls[0].arguments == {"data_request": "Sales data from last quarter"}
    assert run.handoffs[0].from_agent == "Data Router Agent"
    assert "analyze the sales data" in run.handoffs[0].context
    assert run.input_tokens == sum(c.input_tokens for c in run.model_calls)


def test_chat_only_traces_are_incomplete_with_reasons():
    runs = _runs(
        AGENTS.parent
        / "openai_chat__otel_contrib_openai_v2"
        / "test_chat_completion_tool_calls_no_content.otlp.json"
    )
    assert len(runs) == 2
    first = next(r for r in runs if r.model_calls[0].requested_tool_calls)
    assert not first.complete
    assert any("no invoke_agent" in r for r in first.completeness_reasons)
    assert sum("get_current_weather" in r for r in first.completeness_reasons) == 2


def test_synthetic_dialect_runs():
    (run,) = _runs(SYNTHETIC / "traceloop_handoff_billing.otlp.json")
    assert (run.root_agent, run.tool_names) == ("Triage Agent", ("get_invoice",))
    assert [(h.from_agent, h.to_agent) for h in run.handoffs] == [("Triage Agent", "Billing Agent")]
    assert "charged twice for invoice INV-1001" in run.handoffs[0].context
    assert run.final_answer.startswith("Invoice INV-1001 was charged twice")
    assert run.complete, run.completeness_reasons
    first, second = _runs(SYNTHETIC / "openinference_support_session.otlp.json")
    assert first.eval_context.build_id == "oi-build"
    assert first.eval_context.item_id == "order-status-1" and first.eval_context.run_index == 0
    assert [d.document_id for d in first.retrieved] == ["kb-7", "kb-9"]
    assert first.retrieved[0].score == 0.82
    sessions = group_sessions([second, first])
    assert [r.trace_id for r in sessions["sess-42"]] == [first.trace_id, second.trace_id]


def _agent_trace():
    return [
        make_span(
            "1",
            operation=Operation.INVOKE_AGENT,
            agent_name="Root",
            start=0,
            end=100,
            output_messages=(assistant({"type": "text", "content": "done"}),),
        ),
        make_span(
            "2",
            "1",
            operation=Operation.CHAT,
            start=10,
            input_tokens=5,
            output_tokens=3,
            output_messages=(
                assistant(tool_call("c1", "lookup", {"k": 1}), tool_call("c2", "lookup", {"k": 2})),
            ),
        ),
        make_span(
            "3",
            "1",
            operation=Operation.EXECUTE_TOOL,
            tool_name="lookup",
            tool_arguments={"k": 2},
            start=30,
        ),
        make_span(
            "4",
            "1",
            operation=Operation.EXECUTE_TOOL,
            tool_name="lookup",
            tool_call_id="c1",
            tool_arguments={"k": 1},
            start=31,
        ),
    ]


def test_assembly_ignores_order_and_duplicates():
    spans = _agent_trace()
    expected = assemble_runs(spans)
    shuffled = spans + spans[:2]
    random.Random(7).shuffle(shuffled)
    assert assemble_runs(shuffled) == expected
    (run,) = expected
    assert [(c.call_id, c.arguments) for c in run.tool_calls] == [
        ("c2", {"k": 2}),
        ("c1", {"k": 1}),
    ]
    assert run.complete and run.final_answer == "done"


def test_late_root_span_completes_the_run():
    spans = _agent_trace()
    (early,) = assemble_runs(spans[1:])
    assert not early.complete and early.root_span_id is None
    assert any("parent 0000000000000001 is missing" in r for r in early.completeness_reasons)
    (late,) = assemble_runs([*spans[1:], spans[0]])
    assert late.complete and late.root_span_id == "0000000000000001"


def test_several_roots_and_missing_tool_and_usage_are_reported():
    spans = [
        *_agent_trace()[:3],
        make_span("9", operation=Operation.INVOKE_AGENT, agent_name="Other", start=50),
        make_span("8", "1", operation=Operation.CHAT, start=60),
    ]
    (run,) = assemble_runs(spans)
    reasons = " | ".join(run.completeness_reasons)
    assert "2 root spans" in reasons
    assert "tool call lookup (c1)" in reasons  # span 4 (its executor) is absent
    assert "inference span 0000000000000008" in reasons and "no token usage" in reasons
    assert run.root_agent == "Root"


def test_nested_agent_of_a_different_agent_is_a_handoff():
    spans = [
        make_span("1", operation=Operation.INVOKE_AGENT, agent_name="Triage", start=0),
        make_span(
            "2",
            "1",
            operation=Operation.INVOKE_AGENT,
            agent_name="Billing",
            start=5,
            input_messages=(assistant({"type": "text", "content": "invoice 42"}),),
        ),
        make_span("3", "1", operation=Operation.INVOKE_AGENT, agent_name="Triage", start=7),
    ]
    (run,) = assemble_runs(spans)
    assert [(h.from_agent, h.to_agent) for h in run.handoffs] == [("Triage", "Billing")]
    assert run.handoffs[0].context == "invoice 42"
