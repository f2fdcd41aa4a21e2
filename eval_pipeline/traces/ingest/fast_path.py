"""The ingestion fast path: a protobuf or JSON request straight to redacted store rows.

Nearly all traffic is spans in the current GenAI conventions. For those, the general path's
intermediate objects (a raw ``Span``, its normalised state, the redacted state, then the store
row) cost more than the work itself. Here each protobuf span goes to its store row in one pass,
through the same helpers as the general path (``otlp_protobuf.split_attributes``,
``dialect_genai.scalar_fields``, ``messages.parse_messages`` / ``normalise_part`` and the
``Redactor``), so the stored row equals that of ``redact(normalise(decode(span)))``.

Spans it does not take go through the general path, one by one, in place: spans with events
(older conventions put messages there, and the operation-details event its content),
another dialect's markers, renamed or removed attributes (the pre-1.28 ``gen_ai.prompt`` /
``gen_ai.completion`` included), or any field the general decoder rejects (which then
reports the error). Links, trace state and the schema URLs (with the convention version the
URL names) are decoded here by the general decoders' own helpers. Two
differences in effort, none in result: a tool payload the policy drops is never parsed, and
output messages (parsed once, never shared) go to their stored JSON text without ``Message``
objects; the tool calls in those texts are handed on (``RowBatch.tool_calls``) so the
completeness stage does not parse them again. ``eval_pipeline_tests/traces/ingest/
test_fast_path.py`` holds both paths equal, as stored, on every OTLP file in ``data/otel``, the
benchmark payload and each way off the fast path.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.decode.errors import DecodeError, FieldError
from eval_pipeline.traces.decode.otlp_json import attributes as json_attributes
from eval_pipeline.traces.decode.otlp_json import (
    iter_scopes,
    json_span,
    links_of,
    parse_document,
    span_error,
    span_head,
    trace_state_of,
)
from eval_pipeline.traces.decode.otlp_protobuf import (
    KIND_NAMES,
    NO_URLS,
    STATUS_NAMES,
    attribute_reader,
    attributes,
    links,
    pb_span,
    rejected,
    schema_urls,
    split_attributes,
)
from eval_pipeline.traces.decode.raw_attributes import AttributeReader, DamagedAttribute, RawRequest
from eval_pipeline.traces.decode.wire_spans import (
    WireSpan,
    wire_rejected,
    wire_scopes,
    wire_span,
)
from eval_pipeline.traces.model import Message, Span
from eval_pipeline.traces.normalise import openinference as dialect_openinference
from eval_pipeline.traces.normalise import traceloop as dialect_traceloop
from eval_pipeline.traces.normalise.genai import CURRENT, LIFTED, scalar_fields
from eval_pipeline.traces.normalise.messages import (
    json_or_text,
    normalise_part,
    parse_arguments,
    parse_messages,
    parse_output_messages,
)
from eval_pipeline.traces.normalise.normaliser import normalise_span
from eval_pipeline.traces.redact.redactor import Redactor
from eval_pipeline.traces.semconv import schema_version
from eval_pipeline.traces.store.json_text import dumps
from eval_pipeline.traces.store.span_table import Row, span_row

GENERAL_ONLY = (
    frozenset(sc.RENAMED_ATTRIBUTES)
    | {sc.SYSTEM, dialect_openinference.SPAN_KIND}
    | dialect_traceloop.MARKERS
)
"""Attributes whose presence sends a span down the general path (renames, other dialects)."""
_GENERAL_LIFTED = frozenset({sc.SYSTEM, sc.PROMPT, sc.COMPLETION})
"""Lifted attributes (``dialect_genai.LIFTED``) whose presence does the same."""
_DECLINED = (GENERAL_ONLY - LIFTED) | (_GENERAL_LIFTED & LIFTED)
"""``genai_tail``'s test on all of a span's attributes, before the lifted ones are set apart:
the native reader keeps the attributes of such a span whole, for the general path."""

# Attribute names and constants, bound once (the hot path reads them for every span).
_PROVIDER = sc.PROVIDER_NAME
_ARGUMENTS = sc.TOOL_CALL_ARGUMENTS
_RESULT = sc.TOOL_CALL_RESULT
_INPUTS = sc.INPUT_MESSAGES
_OUTPUTS = sc.OUTPUT_MESSAGES
_DIALECT = sc.DIALECT_OTEL_GENAI
_UNSET = STATUS_NAMES[0]
_ZERO_TRACE = "0" * 32
_ZERO_SPAN = "0" * 16
_NO_EVENTS: tuple[()] = ()
_NO_LINKS: tuple[()] = ()
Urls = tuple[str | None, str | None]
"""The scope's and the resource's schema URLs."""


ToolCalls = dict[str, list[dict[str, Any]]]
"""Stored output-message text -> the ``tool_call`` parts in it (see ``RowBatch``)."""


@dataclass
class RowBatch:
    """Store rows of one request, and one error per rejected span.

    ``tool_calls`` holds, for each output-message text this path wrote with a tool call in
    it, the parts of those calls: the completeness stage reads them from here instead of
    parsing the text again (``ingest.completeness``).
    """

    rows: list[Row] = field(default_factory=list)
    errors: list[DecodeError] = field(default_factory=list)
    tool_calls: ToolCalls = field(default_factory=dict)


def decode_rows(payload: bytes, source: str, limit: int, redactor: Redactor) -> RowBatch | None:
    """Rows for every span of a protobuf request; None when the request does not parse.

    A request that does not parse as a whole (a damaged attribute included: see
    ``raw_attributes``) goes to the general decoder's salvage path
    (``otlp_protobuf.decode_protobuf``), which keeps its good spans. A plain request is read
    natively (``wire_spans``); any other is parsed with the generated classes.
    """
    reader = attribute_reader(limit)
    scopes = wire_scopes(payload, limit, LIFTED, _DECLINED)
    if scopes is not None:
        try:
            return _rows(
                (
                    (resource, name, spans, (scope_url, resource_url))
                    if scope_url or resource_url
                    else (resource, name, spans, NO_URLS)
                    for resource, name, scope_url, resource_url, spans in scopes
                ),
                partial(wire_row, reader=reader),
                partial(wire_span, reader=reader),
                wire_rejected,
                source,
                limit,
                redactor,
            )
        except DamagedAttribute:
            return None
    try:
        request = RawRequest.FromString(payload)
    except ProtobufDecodeError:
        return None
    pb_scopes = (
        (
            resource,
            scope_spans.scope.name or None,
            scope_spans.spans,
            schema_urls(resource_spans, scope_spans),
        )
        for resource_spans in request.resource_spans
        for resource in [attributes(resource_spans.resource.attributes, limit)]
        for scope_spans in resource_spans.scope_spans
    )
    try:
        return _rows(
            pb_scopes,
            partial(fast_row, reader=reader),
            partial(pb_span, reader=reader),
            rejected,
            source,
            limit,
            redactor,
        )
    except DamagedAttribute:
        return None


def decode_json_rows(
    payload: bytes, source: str, limit: int, redactor: Redactor
) -> RowBatch | None:
    """Rows for every span of an OTLP/JSON request; None to leave it to the general decoder.

    The general decoder (``otlp_json.decode_json``) takes a request that is not UTF-8 or not
    JSON, or whose structure is off anywhere, and reports it as before.
    """
    try:
        document, not_utf8 = parse_document(payload)
        if not_utf8:
            return None
        scopes = list(iter_scopes(document, limit))
    except (ValueError, FieldError):  # json.JSONDecodeError is a ValueError
        return None
    return _rows(scopes, json_row, json_span, span_error, source, limit, redactor)


def _rows(
    scopes: Iterable[tuple[dict[str, Any], str | None, Iterable[Any], Urls]],
    fast: Callable[[Any, dict[str, Any], str | None, int, Redactor, ToolCalls, Urls], Row | None],
    general: Callable[[Any, dict[str, Any], str | None, int, Urls], Span],
    reject: Callable[[Any, FieldError, str], DecodeError],
    source: str,
    limit: int,
    redactor: Redactor,
) -> RowBatch:
    """Each span's row from ``fast``, else through the general path.

    ``general`` decodes a span the fast path declines, raising ``FieldError`` for a bad field,
    which ``reject`` turns into the span's error.
    """
    batch = RowBatch()
    keep = batch.rows.append
    calls = batch.tool_calls
    for resource, scope, spans, urls in scopes:
        for raw in spans:
            try:
                row = fast(raw, resource, scope, limit, redactor, calls, urls)
                if row is None:
                    row = span_row(
                        redactor.redact(normalise_span(general(raw, resource, scope, limit, urls)))
                    )
            except FieldError as exc:
                batch.errors.append(reject(raw, exc, source))
                continue
            except RecursionError:  # bad input (see ``guard.BAD_INPUT``); any other error: a bug
                problem = FieldError("span", "cannot be ingested: nested too deep")
                batch.errors.append(reject(raw, problem, source))
                continue
            keep(row)
    return batch


def json_row(
    raw: Any,
    resource: dict[str, Any],
    scope: str | None,
    limit: int,
    redactor: Redactor,
    calls: ToolCalls | None = None,
    urls: Urls = NO_URLS,
) -> Row | None:
    """``fast_row`` for a span of an OTLP/JSON request (a decoded JSON object)."""
    if type(raw) is not dict or raw.get("events"):
        return None
    try:
        head = span_head(raw, limit)
        attrs = json_attributes(raw.get("attributes", []), "attributes", limit)
        span_links = links_of(raw, limit) if raw.get("links") else _NO_LINKS
        origin = (span_links, trace_state_of(raw, limit), *urls)
    except FieldError:
        return None
    lifted = {key: attrs.pop(key) for key in LIFTED.intersection(attrs)}
    tail = genai_tail(head[3], attrs, lifted, resource, scope, redactor, calls, urls)
    return None if tail is None else head + tail + origin


def fast_row(
    span: PbSpan,
    resource: dict[str, Any],
    scope: str | None,
    limit: int,
    redactor: Redactor,
    calls: ToolCalls | None = None,
    urls: Urls = NO_URLS,
    reader: AttributeReader | None = None,
) -> Row | None:
    """The redacted store row of a current-conventions GenAI span; None for any other span.

    ``calls`` (optional) receives the tool calls of the output text written (``RowBatch``);
    ``urls`` are the span's scope's and resource's schema URLs. ``reader``: the span is a
    ``RawRequest``'s; its attributes are read first (a damaged one raises
    ``DamagedAttribute`` whatever else is wrong with the span, see ``otlp_protobuf.pb_span``).
    """
    try:
        attrs, lifted = (
            split_attributes(span.attributes, limit, LIFTED)
            if reader is None
            else reader.split(span.attributes, LIFTED)
        )
    except FieldError:
        return None
    trace_id = span.trace_id.hex()
    span_id = span.span_id.hex()
    parent = span.parent_span_id.hex()
    if (
        len(trace_id) != 32
        or trace_id == _ZERO_TRACE
        or len(span_id) != 16
        or span_id == _ZERO_SPAN
        or (parent and len(parent) != 16)
        or span.events
    ):
        return None
    try:
        span_links: Any = span.links
        span_links = links(span_links, limit) if span_links else _NO_LINKS
    except FieldError:
        return None
    name = span.name
    tail = genai_tail(name, attrs, lifted, resource, scope, redactor, calls, urls)
    if tail is None:
        return None
    # Most spans carry no status: one presence test instead of three reads of a default.
    if span.HasField("status"):
        status = span.status
        code = status.code
        status_code = STATUS_NAMES[code] if 0 <= code < 3 else _UNSET
        status_message = status.message or None
    else:
        status_code, status_message = _UNSET, None
    kind = span.kind
    head = (
        trace_id,
        span_id,
        parent if parent and parent != _ZERO_SPAN else None,
        name,
        KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else "unspecified",
        span.start_time_unix_nano,
        span.end_time_unix_nano,
        status_code,
        status_message,
    )
    return head + tail + (span_links, span.trace_state or None) + urls


def wire_row(
    span: WireSpan,
    resource: dict[str, Any],
    scope: str | None,
    limit: int,
    redactor: Redactor,
    calls: ToolCalls | None = None,
    urls: Urls = NO_URLS,
    reader: AttributeReader | None = None,
) -> Row | None:
    """``fast_row`` for a span read natively (``wire_spans``); the same row, or None.

    The span's attributes come split on ``LIFTED`` (``wire_scopes``), or whole when one of
    them sends the span down the general path, or as their wire bytes.
    """
    attrs, lifted, raw = span[1], span[2], span[3]
    if lifted is None:
        if raw is None:
            return None  # whole: an attribute only the general path takes (``_DECLINED``)
        assert reader is not None
        try:
            attrs, lifted = reader.split(raw, LIFTED)
        except FieldError:
            return None
    assert attrs is not None
    head = span[0]
    tail = genai_tail(head[3], attrs, lifted, resource, scope, redactor, calls, urls)
    if tail is None:
        return None
    return head + tail + (_NO_LINKS, span[4]) + urls


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
            part = normalise_part(item, parse_arguments=False)
            kind = part.get("type")
            if kind == "tool_call_response":
                return None
            if kind == "tool_call" and redactor.policy.keeps_arguments(str(part.get("name"))):
                parse_arguments(part)  # kept: parsed as the general path would have
            stored_part = redactor.output_part(part, new_dropped, new_found)
            if kind == "tool_call":
                requested.append(stored_part)
            redacted.append(stored_part)
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
