"""Tiny multi-turn agents for the conversation runner tests (real OTel spans)."""

import json
from typing import Any

from eval_pipeline.datasets.item import DatasetItem

SEEN: list[dict[str, Any]] = []
"""What each turn of ``echo`` was given (turn, conversation id, messages, script visible)."""


def echo(item: DatasetItem, context: Any) -> str:
    """Answer each turn with "you said: <last user message>" (or "confirm?" on "cancel")."""
    last = [m["content"] for m in item.input_messages if m["role"] == "user"][-1]
    SEEN.append(
        {
            "turn": context.turn,
            "conversation_id": context.conversation_id,
            "messages": [dict(m) for m in item.input_messages],
            "script_visible": item.conversation is not None,
        }
    )
    answer = "Do you confirm the cancellation?" if "cancel" in last else f"you said: {last}"
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "echo",
        "gen_ai.input.messages": json.dumps(
            [{"role": "user", "parts": [{"type": "text", "content": last}]}]
        ),
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
        ),
    }
    with context.tracer.start_as_current_span("invoke_agent echo", attributes=attributes):
        pass
    return answer


def no_root_on_turn_two(item: DatasetItem, context: Any) -> None:
    """Turn 1 is a proper agent run; turn 2 emits only a tool span (no invoke_agent root)."""
    if context.turn == 1:
        echo(item, context)
        return
    with context.tracer.start_as_current_span(
        "execute_tool t", attributes={"gen_ai.operation.name": "execute_tool"}
    ):
        pass
