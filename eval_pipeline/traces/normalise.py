"""Raw decoded spans -> spans in the pinned GenAI convention.

The target is ``semconv.TARGET_CONVENTION_VERSION``.

The dialect is detected per span (OpenInference span kind, OpenLLMetry markers, otherwise OTel
GenAI of any version) and recorded on the span with the version it arrived in. Attributes
lifted into ``Span`` fields are removed from ``attributes``; every other attribute, unknown
ones included, is kept under its (renamed where the conventions renamed it) name.
Normalising an already normalised span returns it unchanged.
"""

from collections.abc import Iterable

from eval_pipeline.traces import dialect_genai, dialect_openinference, dialect_traceloop
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.span_factory import new_span_unchecked


def normalise_span(span: Span) -> Span:
    """One span in the pinned convention (a span already normalised is returned as is)."""
    if span.convention_version is not None:
        return span
    attributes = span.attributes
    if dialect_openinference.is_openinference(attributes):
        fields = dialect_openinference.lift(span)
    elif dialect_traceloop.is_traceloop(attributes):
        fields = dialect_traceloop.lift(span)
    else:
        fields = dialect_genai.lift(span)
    fields.update(
        trace_id=span.trace_id,
        span_id=span.span_id,
        parent_span_id=span.parent_span_id,
        name=span.name,
        kind=span.kind,
        start_time_unix_nano=span.start_time_unix_nano,
        end_time_unix_nano=span.end_time_unix_nano,
        status_code=span.status_code,
        status_message=span.status_message,
        resource=span.resource,
        scope_name=span.scope_name,
    )
    return new_span_unchecked(fields)


def normalise_spans(spans: Iterable[Span]) -> list[Span]:
    """``normalise_span`` over many spans, in order."""
    return [normalise_span(span) for span in spans]
