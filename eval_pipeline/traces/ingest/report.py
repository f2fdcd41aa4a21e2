"""What one ingestion did: counts, the traces and builds it touched, incomplete traces, errors.

Policy on bad input (OTLP ``partial_success`` semantics): a bad span is rejected with an error
naming the source, the span and the field; a payload that cannot be read at all is one error;
every good span is stored. Callers (the CLI) turn any error into exit code 2 after the good
data is stored; the receiver answers ``partial_success``.
"""

from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.traces.decode.errors import DecodeError


@dataclass
class IngestReport:
    """Counts, touched traces and builds, incomplete traces (with reasons) and every error.

    ``batches`` counts the inputs handed to ``ingest`` (files, requests, runs).
    ``incomplete`` maps each incomplete trace of the batches to its reasons (see
    ``ingest.completeness``: judged per batch).
    """

    batches: int = 0
    spans_decoded: int = 0
    spans_stored: int = 0
    spans_rejected: int = 0
    traces: set[str] = field(default_factory=set)
    builds: set[str] = field(default_factory=set)
    incomplete: dict[str, tuple[str, ...]] = field(default_factory=dict)
    errors: list[DecodeError] = field(default_factory=list)

    @property
    def spans_duplicate(self) -> int:
        """Decoded spans that were already stored (idempotent re-ingestion)."""
        return self.spans_decoded - self.spans_stored

    @property
    def ok(self) -> bool:
        """True when nothing was rejected."""
        return not self.errors

    def summary(self) -> dict[str, Any]:
        """A JSON-safe summary (for the CLI and the receiver's callers)."""
        return {
            "batches": self.batches,
            "spans_decoded": self.spans_decoded,
            "spans_stored": self.spans_stored,
            "spans_duplicate": self.spans_duplicate,
            "spans_rejected": self.spans_rejected,
            "traces": len(self.traces),
            "traces_incomplete": len(self.incomplete),
            "incomplete": {trace: list(reasons) for trace, reasons in self.incomplete.items()},
            "builds": sorted(self.builds),
            "errors": [str(e) for e in self.errors],
        }
