"""What a detector is and returns: one interface, two scopes, a flag with evidence.

A detector is synchronous and bounded in time (linear in the spans it reads, text scans capped
at ``MAX_SCAN_CHARS`` per span). Its ``scope`` says when the real-time plane runs it:

- ``span``: on each span as it arrives (``detect_span``), so a failed tool call alerts at once;
- ``trace``: on a completed run, after its root ended and a quiet period (``detect``).

``detect(run)`` is every detector's whole-run check (for a span detector: ``detect_span`` over
the run's spans), so replaying a stored build raises exactly the flags the live plane raised.
"""

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from eval_pipeline.traces.model import AgentRun, Span

MAX_SCAN_CHARS = 65_536
"""Characters of one span's text a pattern detector reads (a bound on its time)."""


class Severity:
    """Flag severities, mildest first."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


class Scope:
    """When a detector runs in the real-time plane."""

    SPAN = "span"
    TRACE = "trace"


@dataclass(frozen=True)
class Flag:
    """One detection: which detector, how bad, where (span ids), and why.

    ``span_ids[0]`` (or none) is the flag's place: alerts are deduplicated by (detector,
    trace, that span).
    """

    detector_id: str
    severity: str
    trace_id: str
    message: str
    span_ids: tuple[str, ...] = ()
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def span_key(self) -> str:
        """The span the flag is about (first of ``span_ids``), or ``""`` for the whole trace."""
        return self.span_ids[0] if self.span_ids else ""


@runtime_checkable
class Detector(Protocol):
    """A bounded check; ``scope`` says whether it runs per span or per completed trace."""

    @property
    def id(self) -> str:
        """Detector id, snake_case with a version (``tool_error@2``)."""
        ...

    @property
    def scope(self) -> str:
        """``Scope.SPAN`` or ``Scope.TRACE``."""
        ...

    def detect_span(self, span: Span) -> list[Flag]:
        """Flags raised by one span (always empty for a trace detector)."""
        ...

    def detect(self, run: AgentRun) -> list[Flag]:
        """Flags raised by a whole run (empty when it looks healthy)."""
        ...


class SpanDetector:
    """Base of span-scope detectors: a run's flags are its spans' flags, in span order."""

    scope = Scope.SPAN

    def detect_span(self, span: Span) -> list[Flag]:
        """Flags raised by one span."""
        raise NotImplementedError

    def detect(self, run: AgentRun) -> list[Flag]:
        """``detect_span`` over the run's spans."""
        return [flag for span in run.spans for flag in self.detect_span(span)]


class TraceDetector:
    """Base of trace-scope detectors: nothing per span, everything on the completed run."""

    scope = Scope.TRACE

    def detect_span(self, span: Span) -> list[Flag]:
        """Trace detectors wait for the run: no flag per span."""
        del span
        return []

    def detect(self, run: AgentRun) -> list[Flag]:
        """Flags raised by the completed run."""
        raise NotImplementedError
