"""Small builders for agent runs and dataset items (no trace decoding involved)."""

import itertools
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.traces.model import (
    AgentRun,
    EvalContext,
    Handoff,
    Message,
    ModelCall,
    Operation,
    RetrievedDocument,
    Span,
    StatusCode,
    ToolCall,
)

_IDS = itertools.count(1)


def span_id() -> str:
    """A fresh 16-hex-digit span id."""
    return f"{next(_IDS):016x}"


def make_span(operation: str = Operation.EXECUTE_TOOL, **fields: Any) -> Span:
    """A span with sensible defaults (trace ``t1``, fresh span id)."""
    defaults: dict[str, Any] = {
        "trace_id": "0" * 31 + "1",
        "span_id": span_id(),
        "parent_span_id": None,
        "name": operation,
        "operation": operation,
    }
    return Span(**{**defaults, **fields})


def call(
    name: str,
    arguments: Any = None,
    *,
    result: Any = "ok",
    error: str | None = None,
    agent: str | None = None,
) -> ToolCall:
    """One executed tool call."""
    return ToolCall(
        name=name,
        arguments=arguments if arguments is not None else {},
        result=result,
        error=error,
        span_id=span_id(),
        agent_name=agent,
    )


def make_run(
    calls: tuple[ToolCall, ...] | list[ToolCall] = (),
    *,
    answer: str | None = "Done.",
    trace_id: str = "0" * 31 + "1",
    run_index: int = 0,
    item_id: str | None = None,
    handoffs: tuple[Handoff, ...] = (),
    retrieved: tuple[str, ...] = (),
    user_input: str | None = None,
    plan: str | None = None,
    complete: bool = True,
    reasons: tuple[str, ...] = (),
) -> AgentRun:
    """An agent run whose derived views are given directly."""
    root = make_span(Operation.INVOKE_AGENT, trace_id=trace_id, agent_name="agent")
    tool_spans = tuple(
        make_span(
            Operation.EXECUTE_TOOL,
            trace_id=trace_id,
            span_id=c.span_id,
            parent_span_id=root.span_id,
            tool_name=c.name,
            tool_arguments=c.arguments,
            tool_result=c.result,
            status_code=StatusCode.ERROR if c.error else StatusCode.OK,
        )
        for c in calls
    )
    model_calls: tuple[ModelCall, ...] = ()
    if plan is not None:
        out = Message(
            "assistant",
            (
                {"type": "text", "content": plan},
                {"type": "tool_call", "id": "c1", "name": "x", "arguments": {}},
            ),
        )
        model_calls = (
            ModelCall(
                span_id=span_id(),
                model="m",
                provider="p",
                input_tokens=1,
                output_tokens=1,
                input_messages=(),
                output_messages=(out,),
                requested_tool_calls=out.tool_calls,
                agent_name="agent",
                duration_s=0.1,
            ),
        )
    answer_span = make_span(Operation.CHAT, trace_id=trace_id, parent_span_id=root.span_id)
    return AgentRun(
        trace_id=trace_id,
        root_span_id=root.span_id,
        spans=(root, *tool_spans, answer_span),
        tool_calls=tuple(calls),
        model_calls=model_calls,
        handoffs=handoffs,
        retrieved=tuple(RetrievedDocument(text, span_id()) for text in retrieved),
        user_input=user_input,
        final_answer=answer,
        final_answer_span_id=answer_span.span_id if answer is not None else None,
        eval_context=EvalContext(item_id=item_id, run_index=run_index),
        start_time_unix_nano=1_000_000_000,
        end_time_unix_nano=3_500_000_000,
        complete=complete,
        completeness_reasons=reasons,
    )


def expect(name: str, optional: bool = False, **arguments: list[Any]) -> ExpectedToolCall:
    """An expected call; each argument lists its acceptable values."""
    return ExpectedToolCall(name=name, arguments=dict(arguments), optional=optional)


def make_item(item_id: str = "item-1", **fields: Any) -> DatasetItem:
    """A dataset item (fields as in ``DatasetItem``)."""
    return DatasetItem(item_id=item_id, **fields)
