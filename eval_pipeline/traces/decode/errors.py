"""What a decoder reports: the spans it kept and, per rejected span, an error naming where.

Partial success follows OTLP ``partial_success``: a span that cannot be decoded is rejected
with an error naming the source (file or request), the span id when it is known and the field;
every other span in the payload is kept. A payload that cannot be read at all yields one error
and no spans.
"""

from dataclasses import dataclass, field

from eval_pipeline.traces.model import Span

MAX_ATTRIBUTE_BYTES = 1_000_000
"""Largest accepted attribute value (string or bytes); a span carrying a larger one is rejected."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""The integers the store holds (OTLP ``intValue`` and the Arrow columns are 64-bit)."""


@dataclass(frozen=True)
class DecodeError:
    """One rejected span (or an unreadable payload when ``span_id`` is None)."""

    source: str
    field: str
    message: str
    span_id: str | None = None
    trace_id: str | None = None

    def __str__(self) -> str:
        where = f"span {self.span_id}" if self.span_id else "payload"
        return f"{self.source}: {where}: field {self.field}: {self.message}"


@dataclass(frozen=True)
class DecodeResult:
    """The spans decoded from one payload and the errors of the spans that were rejected."""

    spans: list[Span] = field(default_factory=list)
    errors: list[DecodeError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing was rejected."""
        return not self.errors


class FieldError(ValueError):
    """Raised inside a decoder for a bad field; turned into a ``DecodeError`` per span."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field_name = field_name
        self.message = message
