"""What a detector returns: a flag with a severity and evidence that points at spans."""

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from eval_pipeline.traces.model import AgentRun


class Severity:
    """Flag severities, mildest first."""

    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


@dataclass(frozen=True)
class Flag:
    """One detection on one run: which detector, how bad, where (span ids), and why."""

    detector_id: str
    severity: str
    trace_id: str
    message: str
    span_ids: tuple[str, ...] = ()
    evidence: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Detector(Protocol):
    """A synchronous check over a completed run, bounded in time (linear in its spans).

    The same detectors run in the real-time plane (on each completed trace of the stream) and
    in batch (the production sampler), so online flags and offline samples agree.
    """

    @property
    def id(self) -> str:
        """Detector id, snake_case with a version (``tool_error@1``)."""
        ...

    def detect(self, run: AgentRun) -> list[Flag]:
        """Flags raised by ``run`` (empty when it looks healthy)."""
        ...
