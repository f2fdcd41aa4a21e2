"""Entry point for the runners: ``eval_pipeline.sample_agent.app:run_item``.

``run_item(item, context)`` runs one dataset item through the support agent of the build named
by ``context.params["agent_build"]`` (default: the build id), seeded by ``context.seed``, and
records its spans through ``context.tracer``. The eval context goes on the root span.

With ``EVAL_PIPELINE_AGENT_BASE_URL`` set (read per call), the model is a real
OpenAI-compatible endpoint instead of the simulator (see ``openai_agent``).
"""

import os
from collections.abc import Mapping
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry.trace import Tracer

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.sample_agent.agent import SupportAgentRun
from eval_pipeline.sample_agent.builds import get_build
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext

BASE_URL_ENV = "EVAL_PIPELINE_AGENT_BASE_URL"


def run_support_agent(
    item: DatasetItem,
    *,
    build: str,
    seed: int,
    tracer: Tracer,
    context: EvalContext,
    params: Mapping[str, Any] | None = None,
    parent: otel_context.Context | None = None,
) -> dict[str, Any]:
    """Run one item and return ``{"answer", "actions", "build"}``."""
    params = dict(params or {})
    config = get_build(str(params.get("agent_build") or build))
    attributes: dict[str, Any] = dict(eval_context.to_attributes(context))
    attributes.setdefault(eval_context.PROMPT_VERSION, config.name)
    conversation_id = f"conv-{seed:016x}"
    base_url = os.environ.get(BASE_URL_ENV)
    if base_url:
        from eval_pipeline.sample_agent.openai_agent import run_with_openai

        answer, actions = run_with_openai(
            item,
            config,
            base_url=base_url,
            tracer=tracer,
            root_attributes=attributes,
            conversation_id=conversation_id,
            parent=parent,
        )
    else:
        run = SupportAgentRun(config, seed, tracer, conversation_id=conversation_id)
        answer = run.run(item, attributes, parent=parent)
        actions = [name for name, _ in run.db.actions]
    return {"answer": answer, "actions": actions, "build": config.name}


def run_item(item: DatasetItem, context: Any) -> dict[str, Any]:
    """Runner entry point: ``context`` is an ``eval_pipeline.runners.context.RunContext``.

    A context with a ``turn`` is one turn of a conversation (a multi-turn item): the item's
    messages are the conversation so far, answered by ``multi_turn.run_turn``.
    """
    if getattr(context, "turn", None) is not None:
        from eval_pipeline.sample_agent.multi_turn import run_turn

        config = get_build(str(context.params.get("agent_build") or context.build))
        attributes: dict[str, Any] = dict(eval_context.to_attributes(context.eval_context))
        attributes.setdefault(eval_context.PROMPT_VERSION, config.name)
        answer = run_turn(
            item,
            config,
            seed=context.seed,
            tracer=context.tracer,
            conversation_id=context.conversation_id or f"conv-{context.seed:016x}",
            root_attributes=attributes,
        )
        return {"answer": answer, "build": config.name, "turn": context.turn}
    return run_support_agent(
        item,
        build=context.build,
        seed=context.seed,
        tracer=context.tracer,
        context=context.eval_context,
        params=context.params,
    )
