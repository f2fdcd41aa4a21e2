"""One span of a request to its redacted store row, for each way a request is read.

``fast_row`` takes a span parsed with the generated protobuf classes, ``json_row`` one of an
OTLP/JSON request. Each decodes the span's head and origin (links, trace state) with the
general decoders' own helpers and leaves the GenAI fields to ``genai_row.genai_tail``; each
returns None for a span the fast path leaves to the general path.
"""

from typing import Any

from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from eval_pipeline.traces.decode.errors import FieldError
from eval_pipeline.traces.decode.otlp_json import attributes as json_attributes
from eval_pipeline.traces.decode.otlp_json import links_of, span_head, trace_state_of
from eval_pipeline.traces.decode.otlp_protobuf import (
    KIND_NAMES,
    NO_URLS,
    STATUS_NAMES,
    links,
    split_attributes,
)
from eval_pipeline.traces.decode.raw_attributes import AttributeReader
from eval_pipeline.traces.ingest.genai_row import Urls, genai_tail
from eval_pipeline.traces.ingest.output_messages import ToolCalls
from eval_pipeline.traces.normalise.genai import LIFTED
from eval_pipeline.traces.redact.redactor import Redactor
from eval_pipeline.traces.store.span_table import Row

_UNSET = STATUS_NAMES[0]
_ZERO_TRACE = "0" * 32
_ZERO_SPAN = "0" * 16
_NO_LINKS: tuple[()] = ()


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
