"""OpenTelemetry GenAI conventions, any version -> the pinned version's ``Span`` fields.

Covers the renames of ``traces/semconv.py``: ``gen_ai.system`` -> ``gen_ai.provider.name`` (with
its value renames), ``gen_ai.usage.prompt/completion_tokens`` -> ``input/output_tokens``, the
pre-1.37 message events (``gen_ai.user.message`` ... ``gen_ai.choice``), the older
``gen_ai.content.prompt/completion`` events and the pre-1.28 ``gen_ai.prompt`` /
``gen_ai.completion`` span attributes -> input/output messages. The 1.37+
``gen_ai.client.inference.operation.details`` event's attributes count as the span's own
(those the span does not set itself). The recorded version is the one the span's schema URL
names, when it names one (scope first, then resource); otherwise a bucket guessed from the
names used.
"""

import json
from collections.abc import Callable
from typing import Any

from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.decode.raw_span import SpanSource
from eval_pipeline.traces.model import Message, Operation, SpanEvent
from eval_pipeline.traces.normalise.messages import (
    json_or_text,
    message,
    parse_messages,
    parse_output_messages,
)

_OPERATIONS = frozenset(
    value for key, value in vars(Operation).items() if key.isupper() and isinstance(value, str)
)


CURRENT = "1.37+"
"""``convention_version`` of a span that used none of the renamed or removed forms."""
SYSTEM_VERSION = "<1.37"
"""``convention_version`` of a span whose only older form is ``gen_ai.system``."""

_RENAMED_KEYS = frozenset(sc.RENAMED_ATTRIBUTES)
# Pinned operation names that are not also aliases: ``operation_from`` returns them as given.
_PLAIN_OPERATIONS = {name: name for name in _OPERATIONS - sc.OPERATION_ALIASES.keys()}


def operation_from(raw: Any, span_name: str) -> str:
    """The pinned operation name from an attribute value or, failing that, the span name.

    A name the conventions do not pin is kept verbatim (``Span.operation_category`` is then
    ``unknown``): a new operation of a newer convention, or a vendor's, is not lost.
    """
    if isinstance(raw, str) and raw:
        return sc.OPERATION_ALIASES.get(raw, raw)
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


def with_operation_details(
    attributes: dict[str, Any], events: tuple[SpanEvent, ...]
) -> tuple[dict[str, Any], tuple[SpanEvent, ...]]:
    """Attributes with those of any operation-details event added, and the other events.

    The span's own attributes win over the event's; the event itself is lifted away.
    """
    if not any(event.name == sc.OPERATION_DETAILS_EVENT for event in events):
        return attributes, events
    merged = dict(attributes)
    kept = []
    for event in events:
        if event.name == sc.OPERATION_DETAILS_EVENT:
            for key, value in event.attributes.items():
                merged.setdefault(key, value)
        else:
            kept.append(event)
    return merged, tuple(kept)


def lift_events(
    events: tuple[SpanEvent, ...],
) -> tuple[list[Message], list[Message], list[SpanEvent], bool]:
    """Input messages, output messages, remaining events, and whether old events were seen."""
    inputs: list[Message] = []
    outputs: list[Message] = []
    kept: list[SpanEvent] = []
    seen = False
    for event in events:
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


LIFTED = frozenset(
    {
        sc.PROVIDER_NAME,
        sc.SYSTEM,
        sc.INPUT_MESSAGES,
        sc.OUTPUT_MESSAGES,
        sc.TOOL_CALL_ARGUMENTS,
        sc.TOOL_CALL_RESULT,
        sc.AGENT_NAME,
        sc.TOOL_NAME,
        sc.TOOL_CALL_ID,
        sc.USAGE_INPUT_TOKENS,
        sc.USAGE_OUTPUT_TOKENS,
        sc.CONVERSATION_ID,
        sc.OPERATION_NAME,
        sc.PROMPT,
        sc.COMPLETION,
    }
)
"""Attributes lifted into ``Span`` fields (removed from ``attributes``)."""


def lift(span: SpanSource) -> dict[str, Any]:
    """The ``Span`` fields for an OTel GenAI span (``attributes`` is what was not lifted)."""
    events = span.events
    source = span.attributes
    if events:  # most spans carry none
        source, events = with_operation_details(source, events)
    version = CURRENT
    if not _RENAMED_KEYS.isdisjoint(source):
        source = dict(source)
        renamed = _RENAMED_KEYS & source.keys()
        for old in renamed:
            source.setdefault(sc.RENAMED_ATTRIBUTES[old], source.pop(old))
        version = "<1.27" if any("usage" in old for old in renamed) else "<1.37"
    # One pass keeps the unlifted attributes in their order (cheaper than copy-and-pop).
    attrs = {key: value for key, value in source.items() if key not in LIFTED}
    get = source.get
    provider = get(sc.PROVIDER_NAME)
    system = get(sc.SYSTEM)
    if provider is None and system is not None:
        provider = sc.PROVIDER_RENAMES.get(str(system), system)
        version = SYSTEM_VERSION if version == CURRENT else version
    inputs = parse_messages(get(sc.INPUT_MESSAGES))
    outputs = parse_output_messages(get(sc.OUTPUT_MESSAGES))
    if get(sc.PROMPT) is not None or get(sc.COMPLETION) is not None:
        inputs = inputs + parse_messages(get(sc.PROMPT))
        outputs = outputs + parse_output_messages(get(sc.COMPLETION))
        version = "<1.28" if version in (CURRENT, "<1.37") else version
    if events:
        old_in, old_out, kept, seen = lift_events(events)
        if seen:
            inputs = inputs + tuple(old_in)
            outputs = outputs + tuple(old_out)
            events = tuple(kept)
            version = "<1.37" if version == CURRENT else version
    url = span.schema_url or span.resource_schema_url
    if url:
        version = sc.schema_version(url) or version
    arguments = get(sc.TOOL_CALL_ARGUMENTS)
    result = get(sc.TOOL_CALL_RESULT)
    operation, agent, tool, call_id, model, provider, input_tokens, output_tokens, conversation = (
        scalar_fields(get, span.name, provider)
    )
    return {
        "operation": operation,
        "agent_name": agent,
        "tool_name": tool,
        "tool_call_id": call_id,
        "tool_arguments": None if arguments is None else json_or_text(arguments),
        "tool_result": None if result is None else json_or_text(result),
        "model": model,
        "provider": provider,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "conversation_id": conversation,
        "input_messages": inputs,
        "output_messages": outputs,
        "attributes": attrs,
        "events": events,
        "dialect": sc.DIALECT_OTEL_GENAI,
        "convention_version": version,
    }


ScalarFields = tuple[
    str,
    str | None,
    str | None,
    str | None,
    str | None,
    str | None,
    int | None,
    int | None,
    str | None,
]
"""operation, agent, tool, call id, model, provider, input and output tokens, conversation."""


def scalar_fields(get: Callable[[str], Any], span_name: str, provider: Any) -> ScalarFields:
    """The scalar ``Span`` fields of a GenAI span, from its (renamed) attributes' ``get``.

    ``provider`` is the raw provider value (``gen_ai.provider.name``, or the renamed
    ``gen_ai.system``).
    """
    agent = get(sc.AGENT_NAME)
    tool = get(sc.TOOL_NAME)
    call_id = get(sc.TOOL_CALL_ID)
    model = get(sc.RESPONSE_MODEL) or get(sc.REQUEST_MODEL)
    input_tokens = get(sc.USAGE_INPUT_TOKENS)
    output_tokens = get(sc.USAGE_OUTPUT_TOKENS)
    conversation = get(sc.CONVERSATION_ID)
    operation = get(sc.OPERATION_NAME)
    # One shared object per operation name: the store's column builder reads the same few
    # strings over and over instead of one per span.
    plain = _PLAIN_OPERATIONS.get(operation) if type(operation) is str else None
    # Most values are absent, strings or ints: those need no conversion (hot path).
    return (
        plain if plain is not None else operation_from(operation, span_name),
        agent if agent is None or type(agent) is str else _text(agent),
        tool if tool is None or type(tool) is str else _text(tool),
        call_id if call_id is None or type(call_id) is str else _text(call_id),
        model if model is None or type(model) is str else _text(model),
        provider if provider is None or type(provider) is str else _text(provider),
        input_tokens if type(input_tokens) is int else as_int(input_tokens),
        output_tokens if type(output_tokens) is int else as_int(output_tokens),
        (
            conversation
            if conversation is None or type(conversation) is str
            else _text(conversation)
        ),
    )


def _text(value: Any) -> str | None:
    if value is None or type(value) is str:
        return value
    return json.dumps(value) if isinstance(value, dict | list) else str(value)
