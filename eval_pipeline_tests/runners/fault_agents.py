"""Tiny agents for runner tests: a well-behaved one and three faulty ones (real OTel spans)."""

import json
import threading
from typing import Any

from opentelemetry import trace

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.traces import eval_context

CALLS: dict[tuple[str, str, int], int] = {}
_LOCK = threading.Lock()


def _count(context: Any) -> None:
    with _LOCK:
        key = (context.build, context.item_id, context.run_index)
        CALLS[key] = CALLS.get(key, 0) + 1


def good(item: DatasetItem, context: Any) -> str:
    """An agent run: invoke_agent root, one chat, one tool call; eval context on the root."""
    _count(context)
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "tiny",
        **eval_context.to_attributes(context.eval_context),
    }
    with context.tracer.start_as_current_span("invoke_agent tiny", attributes=attributes):
        with context.tracer.start_as_current_span(
            "chat m",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4.1-mini",
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 3,
            },
        ):
            pass
        with context.tracer.start_as_current_span(
            "execute_tool lookup",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": f"call-{item.item_id}-{context.run_index}",
                "gen_ai.tool.call.arguments": json.dumps({"q": item.item_id}),
                "gen_ai.tool.call.result": '"ok"',
            },
        ):
            pass
    return "done"


def global_tracer_agent(item: DatasetItem, context: Any) -> str:
    """Creates its spans through the global tracer (as instrumented libraries do)."""
    _count(context)
    tracer = trace.get_tracer("third.party.instrumentation")
    with (
        tracer.start_as_current_span(
            "invoke_agent lib",
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "lib"},
        ),
        tracer.start_as_current_span(
            "execute_tool t",
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "t"},
        ),
    ):
        pass
    return "done"


def faulty(item: DatasetItem, context: Any) -> str:
    """Misbehaves by item id: ``raise``, ``hang`` (until cancelled), ``silent``; else good."""
    if item.item_id.startswith("raise"):
        _count(context)
        raise RuntimeError("tool backend unreachable")
    if item.item_id.startswith("hang"):
        _count(context)
        context.cancelled.wait(30)
        return "too late"
    if item.item_id.startswith("silent"):
        _count(context)
        return "no spans"
    return good(item, context)
