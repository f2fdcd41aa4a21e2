"""The review queue's items: a trace routed to a person, and the verdict they recorded.

An item is ``open`` from the first thumbs-down on its trace until a reviewer labels it; then it
is ``labelled`` with the verdict (``defect``, ``not-defect`` or ``needs-info``), who gave it
and when. A later label replaces the verdict (the reviewer changed their mind, or the info
came); a later thumbs-down does not reopen a labelled item.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

OPEN = "open"
LABELLED = "labelled"
STATUSES = (OPEN, LABELLED)
VERDICTS = ("defect", "not-defect", "needs-info")


@dataclass(frozen=True)
class ReviewItem:
    """One trace in the review queue, with the feedback that routed it there."""

    trace_id: str
    status: str
    opened_at: datetime
    reason: str
    """Why it was opened (``thumbs-down``)."""
    verdict: str | None = None
    note: str | None = None
    reviewer: str | None = None
    labelled_at: datetime | None = None
    negative_feedback: int = 0
    """How many negative ratings the trace received."""
    feedback_notes: tuple[str, ...] = ()
    """The users' notes with their ratings, oldest first."""

    def as_json(self, *, trace_stored: bool | None = None) -> dict[str, Any]:
        """JSON form (times ISO 8601, UTC); ``trace_stored`` added when known."""
        out: dict[str, Any] = {
            "trace_id": self.trace_id,
            "status": self.status,
            "opened_at": self.opened_at.isoformat(),
            "reason": self.reason,
            "verdict": self.verdict,
            "note": self.note,
            "reviewer": self.reviewer,
            "labelled_at": self.labelled_at.isoformat() if self.labelled_at else None,
            "negative_feedback": self.negative_feedback,
            "feedback_notes": list(self.feedback_notes),
        }
        if trace_stored is not None:
            out["trace_stored"] = trace_stored
        return out
