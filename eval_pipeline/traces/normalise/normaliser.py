"""Raw decoded spans -> spans in the pinned GenAI convention.

The target is ``semconv.TARGET_CONVENTION_VERSION``.

The dialect is detected per span (OpenInference span kind, OpenLLMetry markers, otherwise OTel
GenAI of any version) and recorded on the span with the version it arrived in. Attributes
lifted into ``Span`` fields are removed from ``attributes``; every other attribute, unknown
ones included, is kept under its (renamed where the conventions renamed it) name.
Normalising an already normalised span returns it unchanged.
"""

from collections.abc import Iterable
from typing import Any

from eval_pipeline.traces.model import Span
from eval_pipeline.traces.normalise import genai as dialect_genai
from eval_pipeline.traces.normalise import openinference as dialect_openinference
from eval_pipeline.traces.normalise import traceloop as dialect_traceloop
from eval_pipeline.traces.span_factory import span_from_state


def _lifted(span: Span) -> dict[str, Any]:
    """The fields a raw span's dialect lift sets (every field but ids, times, status, origin)."""
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
    # Every field the lift does not set is carried over from the raw span as it is.
    state = dict(span.__dict__)
    state.update(_lifted(span))
    return span_from_state(state)


def normalise_spans(spans: Iterable[Span]) -> list[Span]:
    """``normalise_span`` over many spans, in order."""
    return [normalise_span(span) for span in spans]


def normalise_batch(spans: list[Span]) -> list[Span]:
    """``normalise_spans`` for a freshly decoded batch that only the caller refers to.

    Each raw span's storage is reused for its normalised form instead of being copied (a
    copy of the ~30 fields costs about as much as the lift itself). The result is equal,
    span by span, to ``normalise_spans(spans)``; the raw spans are consumed.
    """
    for span in spans:
        state = span.__dict__
        if state["convention_version"] is None:
            state.update(_lifted(span))
    return spans
