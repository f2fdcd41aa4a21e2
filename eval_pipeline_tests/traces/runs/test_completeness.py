"""Completeness finds what makes a trace unfit to score, with a reason naming the span.

Parent cycles (spans that lead to no root), self-parented spans, spans that never ended, tool
executions no model call requested and duplicate roots (not taken for a hand-off); an
OpenInference CHAIN root (LangChain) or a workflow root is an agent run root. Ingest's mirror
gives the same reasons (``traces/ingest/test_completeness.py`` runs these cases through it).
"""

import pytest

from eval_pipeline.traces.ingest.completeness import incomplete_traces
from eval_pipeline.traces.model import Operation, Span
from eval_pipeline.traces.runs.assemble import assemble_run
from eval_pipeline.traces.store.span_table import span_row
from eval_pipeline_tests.traces.builders import assistant, make_span
from eval_pipeline_tests.traces.builders import tool_call as call

ROOT = "1"
_chat = {"operation": Operation.CHAT, "input_tokens": 1, "output_tokens": 1}

CASES: dict[str, tuple[list[Span], list[str]]] = {
    "a parent cycle": (
        [
            make_span(ROOT, operation=Operation.INVOKE_AGENT, agent_name="a"),
            make_span("2", "3", start=1, **_chat),
            make_span("3", "2", start=2, **_chat),
        ],
        ["parent cycle: spans 0000000000000002, 0000000000000003 lead to no root"],
    ),
    "a self-parented root": (
        [make_span(ROOT, ROOT, operation=Operation.INVOKE_AGENT, agent_name="a")],
        ["span 0000000000000001 (invoke_agent) is its own parent"],
    ),
    "a span that never ended": (
        [
            make_span(ROOT, operation=Operation.INVOKE_AGENT, agent_name="a"),
            make_span("2", ROOT, start=1, end=0, **_chat),
        ],
        ["span 0000000000000002 (chat) never ended"],
    ),
    "a tool execution no model requested": (
        [
            make_span(ROOT, operation=Operation.INVOKE_AGENT, agent_name="a"),
            make_span(
                "2", ROOT, start=1, output_messages=(assistant(call("c1", "lookup", {})),), **_chat
            ),
            make_span(
                "3",
                ROOT,
                operation=Operation.EXECUTE_TOOL,
                start=2,
                tool_name="lookup",
                tool_call_id="c1",
            ),
            make_span(
                "4",
                ROOT,
                operation=Operation.EXECUTE_TOOL,
                start=3,
                tool_name="refund",
                tool_call_id="c9",
            ),
        ],
        ["tool execution refund (span 0000000000000004) was not requested by any model call"],
    ),
    "duplicate roots": (
        [
            make_span(ROOT, operation=Operation.INVOKE_AGENT, agent_name="a"),
            make_span("9", operation=Operation.INVOKE_AGENT, agent_name="b", start=5),
        ],
        ["2 root spans (0000000000000001, 0000000000000009)"],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_defect_is_found_with_its_reason(case):
    spans, reasons = CASES[case]
    run = assemble_run(spans[0].trace_id, spans)
    assert list(run.completeness_reasons) == reasons
    assert not run.complete
    judged = incomplete_traces([span_row(span) for span in spans])
    assert judged == {spans[0].trace_id: tuple(reasons)}  # ingest's mirror agrees


def test_a_duplicate_root_is_not_a_handoff():
    spans, _ = CASES["duplicate roots"]
    assert assemble_run(spans[0].trace_id, spans).handoffs == ()


@pytest.mark.parametrize("operation", [Operation.INVOKE_WORKFLOW])
def test_a_chain_or_workflow_root_is_an_agent_root(operation):
    spans = [
        make_span(ROOT, operation=operation, name="RunnableSequence"),
        make_span("2", ROOT, start=1, **_chat),
    ]
    run = assemble_run(spans[0].trace_id, spans)
    assert run.complete, run.completeness_reasons
    assert run.root_span_id == "0000000000000001"
    assert incomplete_traces([span_row(span) for span in spans]) == {}
