"""The GenAI part of a fast-path store row: from ``operation`` to ``convention_version``.

``genai_tail`` normalises and redacts a current-conventions GenAI span's attributes into the
store-row fields between the head (ids, name, kind, times, status) and the origin (links,
trace state, schema URLs), through the same helpers as the general path
(``dialect_genai.scalar_fields``, ``messages.parse_messages`` and the ``Redactor``). It
declines (None) a span that only the general path takes (``GENERAL_ONLY``).
"""

from typing import Any

from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.decode.otlp_protobuf import NO_URLS
from eval_pipeline.traces.ingest.output_messages import ToolCalls, output_text
from eval_pipeline.traces.model import Message
from eval_pipeline.traces.normalise import openinference as dialect_openinference
from eval_pipeline.traces.normalise import traceloop as dialect_traceloop
from eval_pipeline.traces.normalise.genai import (
    CURRENT,
    LIFTED,
    scalar_fields,
)
from eval_pipeline.traces.normalise.messages import (
    json_or_text,
    parse_messages,
    parse_output_messages,
)
from eval_pipeline.traces.redact.redactor import Redactor
from eval_pipeline.traces.semconv import schema_version

GENERAL_ONLY = (
    frozenset(sc.RENAMED_ATTRIBUTES)
    | {sc.SYSTEM, dialect_openinference.SPAN_KIND}
    | dialect_traceloop.MARKERS
)
"""Attributes whose presence sends a span down the general path (renames, other dialects)."""
_GENERAL_LIFTED = frozenset({sc.SYSTEM, sc.PROMPT, sc.COMPLETION})
"""Lifted attributes (``dialect_genai.LIFTED``) whose presence does the same."""
DECLINED = (GENERAL_ONLY - LIFTED) | (_GENERAL_LIFTED & LIFTED)
"""``genai_tail``'s test on all of a span's attributes, before the lifted ones are set apart:
the native reader keeps the attributes of such a span whole, for the general path."""

# Attribute names and constants, bound once (the hot path reads them for every span).
_PROVIDER = sc.PROVIDER_NAME
_ARGUMENTS = sc.TOOL_CALL_ARGUMENTS
_RESULT = sc.TOOL_CALL_RESULT
_INPUTS = sc.INPUT_MESSAGES
_OUTPUTS = sc.OUTPUT_MESSAGES
_DIALECT = sc.DIALECT_OTEL_GENAI
_NO_EVENTS: tuple[()] = ()
Urls = tuple[str | None, str | None]
"""The scope's and the resource's schema URLs."""


def genai_tail(
    name: str,
    attrs: dict[str, Any],
    lifted: dict[str, Any],
    resource: dict[str, Any],
    scope: str | None,
    redactor: Redactor,
    calls: ToolCalls | None = None,
    urls: Urls = NO_URLS,
) -> tuple[Any, ...] | None:
    """The redacted store-row fields from ``operation`` to ``convention_version``, or None.

    None: not a current-GenAI span. The head is ``otlp_json.Head``; the caller appends
    links, trace state and ``urls``.
    ``lifted`` holds the attributes in ``dialect_genai.LIFTED``, ``attrs`` the others (owned:
    changed in place). The version is the one ``urls`` name, else ``dialect_genai.CURRENT``.
    """
    if not GENERAL_ONLY.isdisjoint(attrs) or not _GENERAL_LIFTED.isdisjoint(lifted):
        return None
    get = lifted.get
    operation, agent, tool, call_id, model, provider, input_tokens, output_tokens, conversation = (
        scalar_fields(get, name, get(_PROVIDER), attrs.get)
    )
    dropped: set[str] = set()
    arguments = get(_ARGUMENTS)
    result = get(_RESULT)
    if arguments is not None or result is not None:
        arguments, result = redactor.drop_tool_payload(dropped, tool, operation, arguments, result)
        if arguments is not None:
            arguments = json_or_text(arguments)
        if result is not None:
            result = json_or_text(result)
    raw_inputs = get(_INPUTS)
    inputs = () if raw_inputs is None else parse_messages(raw_inputs)
    found: list[str] = []
    raw_outputs = get(_OUTPUTS)
    outputs: tuple[Message, ...] = ()
    outputs_text = None
    if raw_outputs is not None:
        outputs_text = output_text(raw_outputs, redactor, dropped, found, calls)
        if outputs_text is None:
            outputs = parse_output_messages(raw_outputs)
    changes = redactor.changes(
        dropped, arguments, result, inputs, outputs, attrs, found, owned=True
    )
    if changes is not None:
        arguments, result, inputs, outputs, attrs = changes
    return (
        operation,
        agent,
        tool,
        call_id,
        arguments,
        result,
        model,
        provider,
        input_tokens,
        output_tokens,
        conversation,
        inputs,
        outputs if outputs_text is None else outputs_text,
        attrs,
        _NO_EVENTS,
        resource,
        scope,
        _DIALECT,
        (schema_version(urls[0] or urls[1]) or CURRENT) if urls[0] or urls[1] else CURRENT,
    )
