"""Text views of a run that judges and library metrics read: question, evidence, calls, plan."""

import json

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.traces.model import AgentRun, Operation

_MAX_RESULT_CHARS = 4000


def question_of(run: AgentRun, item: DatasetItem) -> str:
    """The user's request: the run's recorded input, else the item's user messages."""
    return (run.user_input or "").strip() or item.user_input.strip()


def evidence_of(run: AgentRun) -> list[str]:
    """Retrieved passages and successful tool results, as text (the answer's evidence)."""
    texts = [doc.content for doc in run.retrieved if doc.content]
    for call in run.tool_calls:
        if call.succeeded and call.result not in (None, ""):
            result = (
                call.result
                if isinstance(call.result, str)
                else json.dumps(call.result, sort_keys=True, default=str)
            )
            texts.append(f"{call.name} returned: {result[:_MAX_RESULT_CHARS]}")
    return texts


def tool_calls_of(run: AgentRun) -> list[str]:
    """The executed calls as ``name(arguments) -> ok|error`` lines."""
    return [
        f"{c.name}({json.dumps(c.arguments, sort_keys=True, default=str)})"
        f" -> {'ok' if c.succeeded else 'error: ' + str(c.error)}"
        for c in run.tool_calls
    ]


def plan_of(run: AgentRun) -> tuple[str, str] | None:
    """(plan text, span id) of the run's plan, or None.

    The plan is a ``plan`` span's output, else the text a model wrote alongside its first tool
    request (agents that think aloud before acting).
    """
    for span in run.spans:
        if span.operation == Operation.PLAN:
            text = "\n".join(m.text for m in span.output_messages if m.text).strip()
            text = text or str(span.attributes.get("gen_ai.plan", "") or "").strip()
            if text:
                return text, span.span_id
    for call in run.model_calls:
        if call.requested_tool_calls:
            text = "\n".join(m.text for m in call.output_messages if m.text).strip()
            return (text, call.span_id) if text else None
    return None
