"""A span as the decoders read it off the wire: the one intermediate form of ingest.

Every OTLP request, protobuf or JSON, is decoded to ``RawSpan`` records; normalisation lifts
each one's dialect fields (``normalise.normaliser.lifted``) and ingest turns the record and its
lifted fields into a store row. The record holds only what the wire carries (no GenAI fields
yet), is owned by the decoder's caller, and is a plain slotted dataclass: built in one
constructor call instead of the frozen ``Span``'s thirty-odd guarded assignments.

``as_span`` gives the frozen, not yet normalised ``Span`` of the record, for callers of
``decode.otlp.decode_otlp`` that work with spans.
"""

from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult
from eval_pipeline.traces.model import Span, SpanEvent, SpanLink

Urls = tuple[str | None, str | None]
"""The scope's and the resource's schema URLs."""
NO_URLS: Urls = (None, None)
"""``Urls`` of a scope that names neither."""


@dataclass(slots=True)
class RawSpan:
    """One decoded, not yet normalised span: ids, name, kind, times, status and origin.

    Ids are lowercase hex, enums by name, attributes plain Python values (see
    ``decode.otlp``). ``schema_url`` is the scope's, ``resource_schema_url`` the resource's.
    """

    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: str
    start_time_unix_nano: int
    end_time_unix_nano: int
    status_code: str
    status_message: str | None
    attributes: dict[str, Any]
    events: tuple[SpanEvent, ...]
    resource: dict[str, Any]
    scope_name: str | None
    links: tuple[SpanLink, ...]
    trace_state: str | None
    schema_url: str | None
    resource_schema_url: str | None

    def as_span(self) -> Span:
        """The raw (not yet normalised) ``Span`` of this record."""
        return Span(
            trace_id=self.trace_id,
            span_id=self.span_id,
            parent_span_id=self.parent_span_id,
            name=self.name,
            kind=self.kind,
            start_time_unix_nano=self.start_time_unix_nano,
            end_time_unix_nano=self.end_time_unix_nano,
            status_code=self.status_code,
            status_message=self.status_message,
            attributes=self.attributes,
            events=self.events,
            resource=self.resource,
            scope_name=self.scope_name,
            convention_version=None,
            links=self.links,
            trace_state=self.trace_state,
            schema_url=self.schema_url,
            resource_schema_url=self.resource_schema_url,
        )


SpanSource = RawSpan | Span
"""What normalisation reads its fields from: a decoded record, or a raw ``Span``."""


@dataclass(slots=True)
class RawBatch:
    """The records decoded from one request, and one error per rejected span (or payload)."""

    spans: list[RawSpan] = field(default_factory=list)
    errors: list[DecodeError] = field(default_factory=list)
    rejected: int = 0
    """How many of ``errors`` reject one span (the others: the payload, or part of it)."""

    def reject(self, error: DecodeError) -> None:
        """Record the error that rejects one span."""
        self.errors.append(error)
        self.rejected += 1

    def as_result(self) -> DecodeResult:
        """The batch as ``Span`` objects (``decode.otlp.decode_otlp``'s result)."""
        return DecodeResult([raw.as_span() for raw in self.spans], self.errors)
