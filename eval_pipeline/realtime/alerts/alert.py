"""An alert: one detector flag on one build's trace, with an id that deduplicates it.

``alert_id`` is a digest of (detector, trace id, span): the same flag raised again (a
redelivered span, the same rows published twice, a replay of the stored build) is the same
alert, stored and sent once.
"""

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from eval_pipeline.realtime.detectors.flag import Flag


def alert_id_of(detector: str, trace_id: str, span_id: str) -> str:
    """The deduplication id of a flag: 32 hex characters of SHA-256 over its place."""
    return hashlib.sha256(f"{detector}\x1f{trace_id}\x1f{span_id}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Alert:
    """One alert, as stored, listed and sent to the webhook (``as_json``)."""

    alert_id: str
    detector: str
    severity: str
    trace_id: str
    span_ids: tuple[str, ...]
    build: str
    reason: str
    detected_at: datetime
    evidence: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_flag(cls, flag: Flag, build: str, detected_at: datetime | None = None) -> "Alert":
        """The alert for ``flag`` raised on a trace of ``build`` (now, unless told)."""
        return cls(
            alert_id_of(flag.detector_id, flag.trace_id, flag.span_key),
            flag.detector_id,
            flag.severity,
            flag.trace_id,
            flag.span_ids,
            build,
            flag.message,
            detected_at or datetime.now(UTC),
            dict(flag.evidence),
        )

    def as_json(self) -> dict[str, Any]:
        """The alert as a JSON object (``detected_at`` in ISO 8601, UTC)."""
        return {
            "alert_id": self.alert_id,
            "detector": self.detector,
            "severity": self.severity,
            "trace_id": self.trace_id,
            "span_ids": list(self.span_ids),
            "build": self.build,
            "reason": self.reason,
            "detected_at": self.detected_at.isoformat(),
            "evidence": self.evidence,
        }
