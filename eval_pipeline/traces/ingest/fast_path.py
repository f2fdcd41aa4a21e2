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

This module reads requests and runs each span through the fast path or the general one;
``span_rows`` turns one span into its row (per encoding), ``genai_row`` its GenAI fields and
``output_messages`` its output messages' stored text.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from google.protobuf.message import DecodeError as ProtobufDecodeError

from eval_pipeline.traces.decode.errors import DecodeError, FieldError
from eval_pipeline.traces.decode.otlp_json import iter_scopes, json_span, parse_document, span_error
from eval_pipeline.traces.decode.otlp_protobuf import (
    attribute_reader,
    attributes,
    pb_span,
    rejected,
    schema_urls,
)
from eval_pipeline.traces.decode.raw_attributes import DamagedAttribute, RawRequest
from eval_pipeline.traces.ingest.genai_row import Urls
from eval_pipeline.traces.ingest.output_messages import ToolCalls
from eval_pipeline.traces.ingest.span_rows import fast_row, json_row
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.normalise.normaliser import normalise_span
from eval_pipeline.traces.redact.redactor import Redactor
from eval_pipeline.traces.store.span_table import Row, span_row

__all__ = ["RowBatch", "ToolCalls", "decode_json_rows", "decode_rows"]


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


_TOO_DEEP = FieldError("span", "cannot be ingested: nested too deep")
"""A span whose values nest too deep (``RecursionError``: bad input, see ``guard.BAD_INPUT``)."""


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
    for resource, scope, spans, urls in scopes:
        _some_rows(
            spans, resource, scope, urls, batch, fast, general, reject, source, limit, redactor
        )
    return batch


def _some_rows(
    spans: Iterable[Any],
    resource: dict[str, Any],
    scope: str | None,
    urls: Urls,
    batch: RowBatch,
    fast: Callable[[Any, dict[str, Any], str | None, int, Redactor, ToolCalls, Urls], Row | None],
    general: Callable[[Any, dict[str, Any], str | None, int, Urls], Span],
    reject: Callable[[Any, FieldError, str], DecodeError],
    source: str,
    limit: int,
    redactor: Redactor,
) -> None:
    """``_rows`` for ``spans`` in Python: each span's row, or its error, into ``batch``."""
    keep = batch.rows.append
    calls = batch.tool_calls
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
            batch.errors.append(reject(raw, _TOO_DEEP, source))
            continue
        keep(row)
