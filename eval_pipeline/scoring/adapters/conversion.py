"""Feeding library metrics from the agent-run model (DeepEval test cases, RAGAS messages).

DeepEval's trace metrics (task completion, plan adherence/quality, step efficiency) read the
private ``LLMTestCase._trace_dict``: a nested ``name/type/input/output/children`` dict, the
shape ``TraceManager.create_nested_spans_dict`` produces. ``trace_dict`` builds it from the
run's span tree. RAGAS agent metrics read a message list (human, AI with tool calls, tool).
Libraries are imported inside the functions.
"""

import json
from collections import defaultdict
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.scoring.arguments import OMITTABLE, parse_arguments
from eval_pipeline.scoring.run_text import evidence_of, question_of
from eval_pipeline.traces.model import AgentRun, Operation, Span

_SPAN_TYPES = {
    Operation.INVOKE_AGENT: "agent",
    Operation.EXECUTE_TOOL: "tool",
    Operation.RETRIEVAL: "retriever",
    **{op: "llm" for op in Operation.INFERENCE},
}


def reference_arguments(expected: ExpectedToolCall) -> dict[str, Any]:
    """One concrete argument set for an expected call.

    Each parameter takes its first acceptable value; parameters whose only acceptable value is
    omission are left out.
    """
    out = {}
    for name, values in expected.arguments.items():
        concrete = [v for v in values if not (isinstance(v, str) and v == OMITTABLE)]
        if concrete:
            out[name] = concrete[0]
    return out


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _span_dict(span: Span, children: dict[str | None, list[Span]]) -> dict[str, Any]:
    kind = _SPAN_TYPES.get(span.operation, "base")
    node: dict[str, Any]
    if kind == "tool":
        node = {
            "name": span.tool_name or span.name,
            "type": kind,
            "input": parse_arguments(span.tool_arguments) or _text(span.tool_arguments),
            "output": _text(span.tool_result),
        }
    elif kind == "llm":
        node = {
            "name": span.name,
            "type": kind,
            "model": span.model,
            "input": "\n".join(m.text for m in span.input_messages),
            "output": "\n".join(m.text for m in span.output_messages)
            or json.dumps(
                [dict(c) for m in span.output_messages for c in m.tool_calls], default=str
            ),
        }
    else:
        node = {
            "name": span.agent_name or span.name,
            "type": kind,
            "input": "\n".join(m.text for m in span.input_messages),
            "output": "\n".join(m.text for m in span.output_messages),
        }
    node["children"] = [
        _span_dict(child, children)
        for child in sorted(children.get(span.span_id, []), key=lambda s: s.start_time_unix_nano)
    ]
    return {k: v for k, v in node.items() if v is not None}


def trace_dict(run: AgentRun) -> dict[str, Any] | None:
    """DeepEval's nested trace dict for the run's root span (None without a root)."""
    children: dict[str | None, list[Span]] = defaultdict(list)
    root = None
    for span in run.spans:
        children[span.parent_span_id].append(span)
        if span.span_id == run.root_span_id:
            root = span
    if root is None:
        return None
    node = _span_dict(root, children)
    node["input"] = node.get("input") or run.user_input or ""
    node["output"] = node.get("output") or run.final_answer or ""
    return node


def deepeval_test_case(run: AgentRun, item: DatasetItem, *, with_trace: bool = False) -> Any:
    """An ``LLMTestCase`` with input, output, tools called/expected, retrieval context."""
    from deepeval.test_case import LLMTestCase, ToolCall

    case = LLMTestCase(
        input=question_of(run, item) or "(no input)",
        actual_output=run.final_answer or "",
        expected_output=item.reference_answer,
        tools_called=[
            ToolCall(
                name=c.name, input_parameters=parse_arguments(c.arguments) or {}, output=c.result
            )
            for c in run.tool_calls
        ],
        expected_tools=[
            ToolCall(name=e.name, input_parameters=reference_arguments(e))
            for e in item.expected_tool_calls
        ],
        retrieval_context=list(evidence_of(run)) or None,
    )
    if with_trace:
        case._trace_dict = trace_dict(run)
    return case


def ragas_messages(run: AgentRun, item: DatasetItem) -> list[Any]:
    """The run as RAGAS messages: the user's request, each tool request and result, the answer."""
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

    messages: list[Any] = [HumanMessage(content=question_of(run, item) or "(no input)")]
    for call in run.tool_calls:
        messages.append(
            AIMessage(
                content="",
                tool_calls=[ToolCall(name=call.name, args=parse_arguments(call.arguments) or {})],
            )
        )
        messages.append(ToolMessage(content=_text(call.result if call.succeeded else call.error)))
    if run.final_answer:
        messages.append(AIMessage(content=run.final_answer))
    return messages


def ragas_reference_calls(item: DatasetItem) -> list[Any]:
    """The item's expected calls as RAGAS tool calls."""
    from ragas.messages import ToolCall

    return [ToolCall(name=e.name, args=reference_arguments(e)) for e in item.expected_tool_calls]
