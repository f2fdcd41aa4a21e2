"""Raw decoded spans -> spans in the pinned GenAI convention.

The target is ``semconv.TARGET_CONVENTION_VERSION``.

The dialect is detected per span (OpenInference span kind, OpenLLMetry markers, otherwise OTel
GenAI of any version) and recorded on the span with the version it arrived in. Attributes
lifted into ``Span`` fields are removed from ``attributes``; every other attribute, unknown
ones included, is kept under its (renamed where the conventions renamed it) name.
Normalising an already normalised span returns it unchanged.

``lifted`` is the step ingest runs on each decoded record (``decode.raw_span.RawSpan``): the
fields the dialect sets, from ``operation`` to ``convention_version``. ``normalise_span``
builds the normalised ``Span`` for callers that work with spans.
"""

from collections.abc import Iterable
from typing import Any

from eval_pipeline.traces.decode.raw_span import SpanSource
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.normalise import genai as dialect_genai
from eval_pipeline.traces.normalise import openinference as dialect_openinference
from eval_pipeline.traces.normalise import traceloop as dialect_traceloop


def lifted(span: SpanSource) -> dict[str, Any]:
    """The fields a raw span's dialect sets (every field but ids, times, status, origin).

    The ``attributes`` returned are a new dict, owned by the caller.
    """
    attributes = span.attributes
    if dialect_openinference.is_openinference(attributes):
        return dialect_openinference.lift(span)
    if dialect_traceloop.is_traceloop(attributes):
        return dialect_traceloop.lift(span)
    return dialect_genai.lift(span)


def normalise_span(span: Span) -> Span:
    """One span in the pinned convention (a span already normalised is returned as is)."""
    if span.convention_version is not None:
        return span
    fields = {name: getattr(span, name) for name in _CARRIED}
    fields.update(lifted(span))
    return Span(**fields)


_CARRIED = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "start_time_unix_nano",
    "end_time_unix_nano",
    "status_code",
    "status_message",
    "resource",
    "scope_name",
    "links",
    "trace_state",
    "schema_url",
    "resource_schema_url",
)
"""The fields normalisation carries over from the raw span as they are."""


def normalise_spans(spans: Iterable[Span]) -> list[Span]:
    """``normalise_span`` over many spans, in order."""
    return [normalise_span(span) for span in spans]
