"""OpenInference (Arize) flattened attributes -> the pinned GenAI ``Span`` fields.

Mapping (the rename map is ``traces/semconv.py``): ``openinference.span.kind`` -> operation,
``llm.input_messages.{i}.message.*`` / ``llm.output_messages.*`` -> messages (with
``tool_calls.{k}.tool_call.*``), ``llm.token_count.*`` -> usage, ``tool.*`` / ``input.value`` /
``output.value`` -> tool call, ``session.id`` -> conversation id, ``retrieval.documents.*`` ->
``gen_ai.retrieval.documents``. Unmapped keys stay in ``attributes``.
"""

from collections import defaultdict
from typing import Any

from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.decode.raw_span import SpanSource
from eval_pipeline.traces.model import JsonValue, Message, Operation
from eval_pipeline.traces.normalise.genai import as_int
from eval_pipeline.traces.normalise.messages import json_or_text, message

SPAN_KIND = "openinference.span.kind"
VERSION = "0.1"

_KINDS = {
    "LLM": Operation.CHAT,
    "AGENT": Operation.INVOKE_AGENT,
    "TOOL": Operation.EXECUTE_TOOL,
    "RETRIEVER": Operation.RETRIEVAL,
    "EMBEDDING": Operation.EMBEDDINGS,
    "CHAIN": Operation.INVOKE_WORKFLOW,  # LangChain runnables: a chain root is a run root
}

_RENAMES = {
    "llm.token_count.prompt_details.cache_read": "gen_ai.usage.cache_read.input_tokens",
    "llm.token_count.prompt_details.cache_write": "gen_ai.usage.cache_creation.input_tokens",
    "llm.token_count.completion_details.reasoning": "gen_ai.usage.reasoning.output_tokens",
    "llm.model_name": sc.REQUEST_MODEL,
    "llm.response.model_name": sc.RESPONSE_MODEL,
}


def is_openinference(attributes: dict[str, Any]) -> bool:
    """True when the span carries the OpenInference span kind."""
    return SPAN_KIND in attributes


def _indexed(attrs: dict[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    groups: dict[int, dict[str, Any]] = defaultdict(dict)
    for key in [k for k in attrs if k.startswith(prefix)]:
        index, _, rest = key[len(prefix) :].partition(".")
        if index.isdigit():
            groups[int(index)][rest] = attrs.pop(key)
    return dict(sorted(groups.items()))


def _message(fields: dict[str, Any], default_role: str) -> Message:
    raw: dict[str, Any] = {
        "role": fields.get("message.role") or default_role,
        "content": fields.get("message.content"),
        "name": fields.get("message.name"),
        "tool_call_id": fields.get("message.tool_call_id"),
    }
    contents = _indexed(fields, "message.contents.")
    if contents and raw["content"] is None:
        raw["content"] = "".join(str(c.get("message_content.text", "")) for c in contents.values())
    calls = _indexed(fields, "message.tool_calls.")
    if calls:
        raw["tool_calls"] = [
            {
                "id": c.get("tool_call.id"),
                "function": {
                    "name": c.get("tool_call.function.name"),
                    "arguments": c.get("tool_call.function.arguments"),
                },
            }
            for c in calls.values()
        ]
    return message(raw, default_role)


def _documents(attrs: dict[str, Any]) -> list[dict[str, JsonValue]]:
    docs = _indexed(attrs, "retrieval.documents.")
    return [
        {
            "id": d.get("document.id"),
            "content": d.get("document.content"),
            "score": d.get("document.score"),
            "metadata": json_or_text(d.get("document.metadata")),
        }
        for d in docs.values()
    ]


def lift(span: SpanSource) -> dict[str, Any]:
    """The ``Span`` fields for an OpenInference span."""
    attrs = dict(span.attributes)
    pop = attrs.pop
    operation = _KINDS.get(str(pop(SPAN_KIND, "")).upper(), Operation.UNKNOWN)
    for old, new in _RENAMES.items():
        if old in attrs:
            attrs[new] = pop(old)
    inputs = tuple(_message(f, "user") for f in _indexed(attrs, "llm.input_messages.").values())
    outputs = tuple(
        _message(f, "assistant") for f in _indexed(attrs, "llm.output_messages.").values()
    )
    input_value = pop("input.value", None)
    output_value = pop("output.value", None)
    tool_arguments: JsonValue = None
    tool_result: JsonValue = None
    if operation == Operation.EXECUTE_TOOL:
        tool_arguments = json_or_text(input_value)
        tool_result = json_or_text(output_value)
    elif operation in (Operation.INVOKE_AGENT, Operation.UNKNOWN):
        if not inputs and input_value is not None:
            inputs = (message({"role": "user", "content": str(input_value)}),)
        if not outputs and output_value is not None:
            outputs = (message({"role": "assistant", "content": str(output_value)}),)
    else:
        attrs.update(
            {
                key: value
                for key, value in (("input.value", input_value), ("output.value", output_value))
                if value is not None
            }
        )
    documents = _documents(attrs)
    if documents:
        attrs[sc.RETRIEVAL_DOCUMENTS] = documents
    provider = pop("llm.provider", None) or pop("llm.system", None)
    return {
        "operation": operation,
        "agent_name": _text(pop("agent.name", None)),
        "tool_name": _text(pop("tool.name", None)),
        "tool_call_id": _text(pop("tool_call.id", None) or pop("tool.id", None)),
        "tool_arguments": tool_arguments,
        "tool_result": tool_result,
        "model": _text(attrs.get(sc.RESPONSE_MODEL) or attrs.get(sc.REQUEST_MODEL)),
        "provider": _text(provider),
        "input_tokens": as_int(pop("llm.token_count.prompt", None)),
        "output_tokens": as_int(pop("llm.token_count.completion", None)),
        "conversation_id": _text(pop("session.id", None)),
        "input_messages": inputs,
        "output_messages": outputs,
        "attributes": attrs,
        "events": span.events,
        "dialect": sc.DIALECT_OPENINFERENCE,
        "convention_version": VERSION,
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
