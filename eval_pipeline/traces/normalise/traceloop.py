"""Traceloop / OpenLLMetry style -> the pinned GenAI ``Span`` fields.

OpenLLMetry marks spans with ``traceloop.span.kind`` (workflow, task, agent, tool) and names
them ``X.agent``, ``X.tool``, ``A → B.handoff``, ``openai.chat`` / ``openai.response``. LLM
spans carry flattened ``gen_ai.prompt.{i}.*`` / ``gen_ai.completion.{i}.*`` messages (tool
calls under ``.tool_calls.{k}.*``), ``llm.request.type`` and the pre-1.27 usage names; entity
spans carry ``traceloop.entity.input`` / ``.output`` as JSON.

The flattened messages are written as OpenLLMetry's instrumentations write them (``role``,
``content`` - a JSON text of OpenAI content parts when the content is a list - ``tool_call_id``,
``refusal``, ``finish_reason``, ``tool_calls.{k}.id/name/arguments``); other instrumentations
that adopted the form (LiteLLM's OTel callback, older OTel ones) are read the same way, and an
explicit ``gen_ai.operation.name`` beside them is kept.
"""

from collections import defaultdict
from typing import Any

from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.decode.raw_span import SpanSource
from eval_pipeline.traces.model import JsonValue, Message, Operation, Span
from eval_pipeline.traces.normalise.genai import lift as lift_genai
from eval_pipeline.traces.normalise.messages import json_or_text, message

SPAN_KIND = "traceloop.span.kind"
ENTITY_NAME = "traceloop.entity.name"
ENTITY_INPUT = "traceloop.entity.input"
ENTITY_OUTPUT = "traceloop.entity.output"

_KINDS = {
    "agent": Operation.INVOKE_AGENT,
    "tool": Operation.EXECUTE_TOOL,
    "workflow": Operation.INVOKE_WORKFLOW,
    "handoff": Operation.HANDOFF,
}
_SUFFIXES = {
    ".agent": Operation.INVOKE_AGENT,
    ".tool": Operation.EXECUTE_TOOL,
    ".handoff": Operation.HANDOFF,
    ".workflow": Operation.INVOKE_WORKFLOW,
}
_REQUEST_TYPES = {
    "chat": Operation.CHAT,
    "completion": Operation.TEXT_COMPLETION,
    "embedding": Operation.EMBEDDINGS,
    "response": Operation.CHAT,
}


MARKERS = frozenset(
    {
        SPAN_KIND,
        "llm.request.type",
        "gen_ai.prompt.0.role",
        "gen_ai.prompt.0.content",
        "gen_ai.completion.0.role",
        "gen_ai.completion.0.content",
        "gen_ai.completion.0.finish_reason",
    }
)
"""Attributes any one of which marks a span as OpenLLMetry style."""


def is_traceloop(attributes: dict[str, Any]) -> bool:
    """True for spans in the OpenLLMetry style."""
    return not MARKERS.isdisjoint(attributes)


def _flattened(attrs: dict[str, Any], prefix: str, default_role: str) -> tuple[Message, ...]:
    groups: dict[int, dict[str, Any]] = defaultdict(dict)
    for key in [k for k in attrs if k.startswith(prefix)]:
        index, _, rest = key[len(prefix) :].partition(".")
        if index.isdigit() and rest:
            groups[int(index)][rest] = attrs.pop(key)
    out = []
    for _, fields in sorted(groups.items()):
        calls: dict[int, dict[str, Any]] = defaultdict(dict)
        for key in [k for k in fields if k.startswith("tool_calls.")]:
            index, _, rest = key[len("tool_calls.") :].partition(".")
            if index.isdigit():
                calls[int(index)][rest] = fields.pop(key)
        raw: dict[str, Any] = dict(fields)
        content = json_or_text(raw.get("content"))
        if isinstance(content, list):  # OpenAI content parts, JSON-encoded by OpenLLMetry
            raw["content"] = content
        if raw.get("content") in (None, "") and raw.get("refusal"):
            raw["content"] = raw.pop("refusal")
        if calls:
            raw["tool_calls"] = [
                {
                    "id": c.get("id"),
                    "function": {"name": c.get("name"), "arguments": c.get("arguments")},
                }
                for _, c in sorted(calls.items())
            ]
        out.append(message(raw, default_role))
    return tuple(out)


def _operation(span: SpanSource, attrs: dict[str, Any]) -> str:
    explicit = attrs.get(sc.OPERATION_NAME)
    if isinstance(explicit, str) and explicit:
        return explicit
    kind = str(attrs.get(SPAN_KIND, "")).lower()
    if kind in _KINDS:
        return _KINDS[kind]
    for suffix, operation in _SUFFIXES.items():
        if span.name.endswith(suffix):
            return operation
    request_type = str(attrs.get("llm.request.type", "")).lower()
    return _REQUEST_TYPES.get(request_type, Operation.UNKNOWN)


def _entity_arguments(value: Any) -> JsonValue:
    parsed = json_or_text(value)
    if isinstance(parsed, dict) and set(parsed) <= {"args", "kwargs"}:
        kwargs = parsed.get("kwargs")
        args = parsed.get("args")
        if kwargs and not args:
            return kwargs if not isinstance(kwargs, str) else json_or_text(kwargs)
    return parsed


def lift(span: SpanSource) -> dict[str, Any]:
    """The ``Span`` fields for an OpenLLMetry span (GenAI names inside are mapped too)."""
    attrs = dict(span.attributes)
    operation = _operation(span, attrs)
    inputs = _flattened(attrs, "gen_ai.prompt.", "user")
    outputs = _flattened(attrs, "gen_ai.completion.", "assistant")
    entity = attrs.get(ENTITY_NAME)
    stem = span.name.rsplit(".", 1)[0] if "." in span.name else span.name
    if operation == Operation.HANDOFF and "→" in stem:
        source, _, target = stem.partition("→")
        attrs.setdefault(sc.HANDOFF_FROM, source.strip())
        attrs.setdefault(sc.HANDOFF_TO, target.strip())
    if operation == Operation.INVOKE_AGENT:
        attrs.setdefault(sc.AGENT_NAME, entity or stem)
    if operation == Operation.EXECUTE_TOOL:
        attrs.setdefault(sc.TOOL_NAME, entity or stem)
        if ENTITY_INPUT in attrs:
            attrs.setdefault(sc.TOOL_CALL_ARGUMENTS, _entity_arguments(attrs.pop(ENTITY_INPUT)))
        if ENTITY_OUTPUT in attrs:
            attrs.setdefault(sc.TOOL_CALL_RESULT, json_or_text(attrs.pop(ENTITY_OUTPUT)))
    elif operation == Operation.INVOKE_AGENT:
        if not inputs and ENTITY_INPUT in attrs:
            inputs = _entity_messages(attrs.pop(ENTITY_INPUT), "user")
        if not outputs and ENTITY_OUTPUT in attrs:
            outputs = _entity_messages(attrs.pop(ENTITY_OUTPUT), "assistant")
    attrs[sc.OPERATION_NAME] = operation
    fields = lift_genai(
        Span(
            trace_id=span.trace_id,
            span_id=span.span_id,
            parent_span_id=span.parent_span_id,
            name=span.name,
            attributes=attrs,
            events=span.events,
        )
    )
    fields["input_messages"] = inputs + fields["input_messages"]
    fields["output_messages"] = outputs + fields["output_messages"]
    fields["dialect"] = sc.DIALECT_TRACELOOP
    version = attrs.get("traceloop.sdk.version") or span.resource.get("traceloop.sdk.version")
    fields["convention_version"] = str(version) if version else "openllmetry"
    return fields


def _entity_messages(value: Any, role: str) -> tuple[Message, ...]:
    parsed = json_or_text(value)
    if isinstance(parsed, list) and all(isinstance(m, dict) and "role" in m for m in parsed):
        return tuple(message(m, role) for m in parsed)
    if isinstance(parsed, dict) and "role" in parsed:
        return (message(parsed, role),)
    text = parsed if isinstance(parsed, str) else json_or_text(value)
    return (message({"role": role, "content": text if isinstance(text, str) else str(value)}),)
