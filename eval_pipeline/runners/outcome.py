"""What a runner returns: one outcome per (build, item, run index), and the batch of them.

A run either completed (its spans were captured) or failed with a reason (the agent raised,
hung past its timeout, or emitted no spans). A failed run is still recorded as a trace: one
synthetic ``invoke_agent`` root span with status error, the eval context, and the attribute
``eval_pipeline.run.failure_reason`` (see ``failure``). Storing it keeps the run visible to
resumption (it is not redone) and to scoring, which turns it into ``error`` rows that the
gate counts as missing.
"""

from dataclasses import dataclass, field

from eval_pipeline.traces.model import Span


class RunStatus:
    """Allowed values of ``RunOutcome.status``."""

    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"
    """Already stored for (build, item, run index) before this batch: not redone."""


@dataclass(frozen=True)
class RunRequest:
    """One run to execute: a dataset item and the index of the run (0-based)."""

    item_id: str
    run_index: int


@dataclass(frozen=True)
class RunOutcome:
    """The result of one run.

    ``spans`` are the captured spans (for a failed run, the synthetic failure root span), as
    captured: what the sink stored of them is redacted by its policy (``sink``), so score what
    the sink holds. ``failure_reason`` is set exactly when ``status`` is failed.
    """

    build: str
    item_id: str
    run_index: int
    status: str
    trace_id: str | None = None
    spans: tuple[Span, ...] = ()
    failure_reason: str | None = None
    wall_s: float = 0.0

    @property
    def failed(self) -> bool:
        """True when the run failed (raised, timed out, or emitted no spans)."""
        return self.status == RunStatus.FAILED


@dataclass(frozen=True)
class RunBatchResult:
    """Every outcome of one ``Runner.run_items`` call, in request order."""

    build: str
    outcomes: tuple[RunOutcome, ...] = field(default_factory=tuple)

    def with_status(self, status: str) -> tuple[RunOutcome, ...]:
        """The outcomes with this ``RunStatus``."""
        return tuple(o for o in self.outcomes if o.status == status)

    @property
    def completed(self) -> tuple[RunOutcome, ...]:
        """Runs executed in this batch that completed."""
        return self.with_status(RunStatus.COMPLETED)

    @property
    def failed(self) -> tuple[RunOutcome, ...]:
        """Runs executed in this batch that failed, each with its reason."""
        return self.with_status(RunStatus.FAILED)

    @property
    def skipped(self) -> tuple[RunOutcome, ...]:
        """Runs already stored before this batch (resumption), not redone."""
        return self.with_status(RunStatus.SKIPPED)

    @property
    def spans(self) -> list[Span]:
        """Every span captured in this batch (completed and failed runs)."""
        return [span for outcome in self.outcomes for span in outcome.spans]

    def summary(self) -> dict[str, int]:
        """Counts per status (JSON-safe)."""
        return {
            RunStatus.COMPLETED: len(self.completed),
            RunStatus.FAILED: len(self.failed),
            RunStatus.SKIPPED: len(self.skipped),
        }
