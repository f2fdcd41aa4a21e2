"""What an import returns: the ingest report of its spans, and the scores it imported.

Imported scores (a benchmark's own recorded reward, say) belong to the importer layer, not to
``traces``: the trace store never sees them; the caller keeps them in the score store.
"""

from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.decode.errors import DecodeError
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.model import Span


@dataclass(frozen=True)
class Recorded:
    """One recorded results document as spans for ingest, and the scores it recorded."""

    spans: list[Span]
    scores: list[Score]


@dataclass
class ImportReport:
    """The ingest report of an import's spans, and the scores the import recorded."""

    ingest: IngestReport
    scores: list[Score] = field(default_factory=list)

    @property
    def errors(self) -> list[DecodeError]:
        """Every problem met (unreadable files, rejected spans or lines)."""
        return self.ingest.errors

    @property
    def ok(self) -> bool:
        """True when nothing was rejected."""
        return self.ingest.ok

    def summary(self) -> dict[str, Any]:
        """The ingest summary with the number of imported scores (JSON-safe)."""
        return {**self.ingest.summary(), "imported_scores": len(self.scores)}
