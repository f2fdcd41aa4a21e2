"""Output messages straight to their stored JSON text, with the redaction policy applied.

Outputs are parsed once and never shared (unlike input histories), so the fast path writes
them to the store's text without building ``Message`` objects (``output_text``); the
``tool_call`` parts of each text are handed on (``ToolCalls``) so the completeness stage does
not parse the text again.
"""

from typing import Any

from eval_pipeline.traces.normalise.messages import json_or_text, normalise_part, parse_arguments
from eval_pipeline.traces.redact.redactor import Redactor
from eval_pipeline.traces.store.json_text import dumps

ToolCalls = dict[str, list[dict[str, Any]]]
"""Stored output-message text -> the ``tool_call`` parts in it (see ``RowBatch``)."""


def output_text(
    value: Any,
    redactor: Redactor,
    dropped: set[str],
    found: list[str],
    calls: ToolCalls | None = None,
) -> str | None:
    """The stored JSON text of GenAI-form output messages with the policy applied.

    Equal to encoding ``parse_output_messages(value)`` after the redactor's pass over it,
    without building the ``Message`` objects (outputs are parsed once and never shared).
    Returns None for any other shape (OpenAI-style messages, tool responses, odd types),
    leaving ``dropped`` and ``found`` untouched; the caller then takes the general way.
    The tool-call parts of a text returned go into ``calls`` under that text.
    """
    parsed = json_or_text(value)
    if type(parsed) is not list:
        return None
    new_dropped: set[str] = set()
    new_found: list[str] = []
    requested: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    for raw in parsed:
        if type(raw) is not dict:
            return None
        role = raw.get("role")
        parts = raw.get("parts")
        name = raw.get("name")
        finish = raw.get("finish_reason")
        if (
            type(role) is not str
            or not role
            or type(parts) is not list
            or (name is not None and type(name) is not str)
            or (finish is not None and type(finish) is not str)
        ):
            return None
        redacted = []
        for item in parts:
            stored_item = stored_part(redactor, item, new_dropped, new_found, requested)
            if stored_item is None:
                return None
            redacted.append(stored_item)
        # The stored form of a message (``span_table._message_text``): keys in this order,
        # name and finish reason only when set.
        stored: dict[str, Any] = {"role": role, "parts": redacted}
        if name is not None and role != "tool":
            cleaned_name, kinds = redactor.tokens.redact(name)
            new_found.extend(f"output_messages.name:{kind}" for kind in kinds)
            stored["name"] = cleaned_name
        if finish is not None:
            stored["finish_reason"] = finish
        messages.append(stored)
    dropped.update(new_dropped)
    found.extend(new_found)
    text = dumps(messages)
    if requested and calls is not None:
        calls[text] = requested
    return text


def stored_part(
    redactor: Redactor,
    item: Any,
    dropped: set[str],
    found: list[str],
    requested: list[dict[str, Any]],
) -> dict[str, Any] | None:
    """One raw output part normalised and redacted; None for a ``tool_call_response``.

    A ``tool_call`` part stored is also appended to ``requested``.
    """
    part = normalise_part(item, parse_arguments=False)
    kind = part.get("type")
    if kind == "tool_call_response":
        return None
    if kind == "tool_call" and redactor.policy.keeps_arguments(str(part.get("name"))):
        parse_arguments(part)  # kept: parsed as the general path would have
    stored = redactor.output_part(part, dropped, found)
    if kind == "tool_call":
        requested.append(stored)
    return stored
