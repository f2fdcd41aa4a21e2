"""OpenTelemetry GenAI conventions, any version -> the pinned version's ``Span`` fields.

Covers the renames in ``notes/semconv.md``: ``gen_ai.system`` -> ``gen_ai.provider.name`` (with
its value renames), ``gen_ai.usage.prompt/completion_tokens`` -> ``input/output_tokens``, the
pre-1.37 message events (``gen_ai.user.message`` ... ``gen_ai.choice``) and the older
``gen_ai.content.prompt/completion`` events -> input/output messages.
"""

import json
from typing import Any

from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.messages import json_or_text, message, parse_messages
from eval_pipeline.traces.model import Message, Operation, Span, SpanEvent

_OPERATIONS = frozenset(
    value for key, value in vars(Operation).items() if key.isupper() and isinstance(value, str)
)


_RENAMED_KEYS = frozenset(sc.RENAMED_ATTRIBUTES)


def operation_from(raw: Any, span_name: str) -> str:
    """The pinned operation name from an attribute value or, failing that, the span name."""
    if isinstance(raw, str) and raw:
        name = sc.OPERATION_ALIASES.get(raw, raw)
        return name if name in _OPERATIONS else Operation.UNKNOWN
    first = span_name.split(" ", 1)[0]
    return first if first in _OPERATIONS and first != Operation.UNKNOWN else Operation.UNKNOWN


def as_int(value: Any) -> int | None:
    """Token counts arrive as ints, floats or strings; anything else is None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _event_message(event: SpanEvent) -> Message | None:
    attrs = event.attributes
    body: Any = attrs.get("gen_ai.event.content") or attrs.get("event.body")
    body = json_or_text(body) if body is not None else dict(attrs)
    if not isinstance(body, dict):
        body = {"content": body}
    if event.name == sc.CHOICE_EVENT:
        inner = json_or_text(body.get("message"))
        data = dict(inner) if isinstance(inner, dict) else {}
        data.setdefault("role", "assistant")
        if body.get("finish_reason") is not None:
            data["finish_reason"] = body["finish_reason"]
        return message(data, "assistant")
    role = sc.MESSAGE_EVENTS.get(event.name)
    if role is None:
        return None
    data = dict(body)
    data.setdefault("role", role)
    if role == "tool" and "tool_call_id" not in data and "id" in data:
        data["tool_call_id"] = data["id"]
    return message(data, role)


def lift_events(span: Span) -> tuple[list[Message], list[Message], list[SpanEvent], bool]:
    """Input messages, output messages, remaining events, and whether old events were seen."""
    inputs: list[Message] = []
    outputs: list[Message] = []
    kept: list[SpanEvent] = []
    seen = False
    for event in span.events:
        if event.name == "gen_ai.content.prompt":
            inputs.extend(parse_messages(event.attributes.get("gen_ai.prompt")))
            seen = True
        elif event.name == "gen_ai.content.completion":
            outputs.extend(parse_messages(event.attributes.get("gen_ai.completion"), "assistant"))
            seen = True
        elif event.name in sc.MESSAGE_EVENTS or event.name == sc.CHOICE_EVENT:
            lifted = _event_message(event)
            if lifted is not None:
                (outputs if event.name == sc.CHOICE_EVENT else inputs).append(lifted)
                seen = True
        else:
            kept.append(event)
    return inputs, outputs, kept, seen


def lift(span: Span) -> dict[str, Any]:
    """The ``Span`` fields for an OTel GenAI span (``attributes`` is what was not lifted)."""
    attrs = dict(span.attributes)
    pop = attrs.pop
    version = "1.37+"
    renamed = _RENAMED_KEYS & attrs.keys()
    for old in renamed:
        attrs.setdefault(sc.RENAMED_ATTRIBUTES[old], pop(old))
    if renamed:
        version = "<1.27" if any("usage" in old for old in renamed) else "<1.37"
    provider = pop(sc.PROVIDER_NAME, None)
    system = pop(sc.SYSTEM, None)
    if provider is None and system is not None:
        provider = sc.PROVIDER_RENAMES.get(str(system), system)
        version = "<1.37" if version == "1.37+" else version
    inputs = parse_messages(pop(sc.INPUT_MESSAGES, None))
    outputs = parse_messages(pop(sc.OUTPUT_MESSAGES, None), "assistant")
    events = span.events
    if events:
        old_in, old_out, kept, seen = lift_events(span)
        if seen:
            inputs = inputs + tuple(old_in)
            outputs = outputs + tuple(old_out)
            events = tuple(kept)
            version = "<1.37" if version == "1.37+" else version
    arguments = pop(sc.TOOL_CALL_ARGUMENTS, None)
    result = pop(sc.TOOL_CALL_RESULT, None)
    return {
        "operation": operation_from(pop(sc.OPERATION_NAME, None), span.name),
        "agent_name": _text(pop(sc.AGENT_NAME, None)),
        "tool_name": _text(pop(sc.TOOL_NAME, None)),
        "tool_call_id": _text(pop(sc.TOOL_CALL_ID, None)),
        "tool_arguments": json_or_text(arguments),
        "tool_result": json_or_text(result),
        "model": _text(attrs.get(sc.RESPONSE_MODEL) or attrs.get(sc.REQUEST_MODEL)),
        "provider": _text(provider),
        "input_tokens": as_int(pop(sc.USAGE_INPUT_TOKENS, None)),
        "output_tokens": as_int(pop(sc.USAGE_OUTPUT_TOKENS, None)),
        "conversation_id": _text(pop(sc.CONVERSATION_ID, None)),
        "input_messages": inputs,
        "output_messages": outputs,
        "attributes": attrs,
        "events": events,
        "dialect": sc.DIALECT_OTEL_GENAI,
        "convention_version": version,
    }


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value) if isinstance(value, dict | list) else str(value)
