"""Builders of multi-turn conversations as normalised spans (one trace per turn)."""

import zlib
from typing import Any

from eval_pipeline.traces.model import Message, Operation, Span
from eval_pipeline_tests.traces.builders import make_span, tool_call

SECOND = 1_000_000_000
T0 = 1_765_000_000 * SECOND


def user(text: str) -> Message:
    """A user message."""
    return Message(role="user", parts=({"type": "text", "content": text},))


def said(text: str) -> Message:
    """An assistant message."""
    return Message(role="assistant", parts=({"type": "text", "content": text},))


def turn_spans(
    turn: int,
    question: str,
    answer: str,
    *,
    conversation: str = "conv-1",
    start: int | None = None,
    tool: tuple[str, dict[str, Any]] | None = None,
    tool_error: str | None = None,
    root_attributes: dict[str, Any] | None = None,
    tokens: tuple[int, int] = (10, 5),
) -> list[Span]:
    """The spans of one turn: an ``invoke_agent`` root, a chat span and optionally a tool.

    Trace ids are derived from the conversation and the turn number; turn ``n`` starts at
    ``T0 + 60 s * n`` unless ``start`` is given, and lasts two seconds.
    """
    trace_id = f"{zlib.crc32(conversation.encode()):08x}{turn:024x}"
    begin = T0 + 60 * SECOND * turn if start is None else start
    root = make_span(
        "1",
        trace_id=trace_id,
        operation=Operation.INVOKE_AGENT,
        start=begin,
        end=begin + 2 * SECOND,
        name="invoke_agent support",
        agent_name="support",
        conversation_id=conversation,
        input_messages=(user(question),),
        output_messages=(said(answer),),
        attributes=dict(root_attributes or {}),
    )
    chat = make_span(
        "2",
        "1",
        trace_id=trace_id,
        operation=Operation.CHAT,
        start=begin + SECOND // 10,
        end=begin + SECOND,
        name="chat gpt",
        input_messages=(user(question),),
        output_messages=(said(answer),)
        if tool is None
        else (Message(role="assistant", parts=(tool_call(f"c{turn}", tool[0], tool[1]),)),),
        input_tokens=tokens[0],
        output_tokens=tokens[1],
    )
    spans = [root, chat]
    if tool is not None:
        spans.append(
            make_span(
                "3",
                "1",
                trace_id=trace_id,
                operation=Operation.EXECUTE_TOOL,
                start=begin + SECOND,
                end=begin + SECOND + SECOND // 2,
                name=f"execute_tool {tool[0]}",
                tool_name=tool[0],
                tool_call_id=f"c{turn}",
                tool_arguments=tool[1],
                tool_result={"ok": tool_error is None},
                status_code="error" if tool_error else "unset",
                status_message=tool_error,
            )
        )
    return spans
