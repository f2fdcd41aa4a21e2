"""How much a judge-based scorer's value moves when the same run is scored again.

``judge_spread`` scores every (run, item) ``repeats`` times with the same scorer and reports,
per item and overall, the standard deviation and range of the values and how often the
pass/fail reading (value >= threshold) flipped. A deterministic judge has zero spread; a
sampling LLM judge does not, and the gate must know by how much. ``save_spread`` stores the
report as JSON under the store root, keyed by metric and judge fingerprint.
"""

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline.traces.model import AgentRun


@dataclass(frozen=True)
class ItemSpread:
    """Repeated values of one (run, item)."""

    item_id: str
    trace_id: str
    values: tuple[float, ...]
    missing: int

    @property
    def stdev(self) -> float:
        """Population standard deviation of the values (0 with fewer than two)."""
        return statistics.pstdev(self.values) if len(self.values) > 1 else 0.0

    @property
    def range(self) -> float:
        """Max - min of the values."""
        return max(self.values) - min(self.values) if self.values else 0.0


@dataclass(frozen=True)
class SpreadReport:
    """Spread of one scorer over repeated scoring (see the module docstring)."""

    metric_id: str
    judge_fingerprint: str | None
    judge_backend: str | None
    repeats: int
    threshold: float
    items: tuple[ItemSpread, ...] = field(default=())

    @property
    def mean_stdev(self) -> float:
        """Mean per-item standard deviation."""
        return statistics.fmean(i.stdev for i in self.items) if self.items else 0.0

    @property
    def max_range(self) -> float:
        """Largest per-item range."""
        return max((i.range for i in self.items), default=0.0)

    @property
    def flip_rate(self) -> float:
        """Share of items whose pass/fail reading was not the same on every repeat."""
        flips = [len({v >= self.threshold for v in i.values}) > 1 for i in self.items if i.values]
        return sum(flips) / len(flips) if flips else 0.0

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "metric_id": self.metric_id,
            "judge_fingerprint": self.judge_fingerprint,
            "judge_backend": self.judge_backend,
            "repeats": self.repeats,
            "threshold": self.threshold,
            "mean_stdev": self.mean_stdev,
            "max_range": self.max_range,
            "flip_rate": self.flip_rate,
            "items": [
                {
                    "item_id": i.item_id,
                    "trace_id": i.trace_id,
                    "values": list(i.values),
                    "missing": i.missing,
                    "stdev": i.stdev,
                    "range": i.range,
                }
                for i in self.items
            ],
        }


def judge_spread(
    scorer: Scorer,
    cases: Sequence[tuple[AgentRun, DatasetItem]],
    *,
    repeats: int = 5,
    threshold: float = 0.5,
) -> SpreadReport:
    """Score each case ``repeats`` times and measure the spread (see the module docstring).

    Raises:
        ValueError: ``repeats`` is below 2.
    """
    if repeats < 2:
        raise ValueError(f"judge_spread needs at least 2 repeats, got {repeats}")
    items = []
    fingerprint = backend = None
    for run, item in cases:
        values: list[float] = []
        missing = 0
        for _ in range(repeats):
            score = scorer.score(run, item)
            fingerprint = fingerprint or score.judge_fingerprint
            backend = backend or score.judge_backend
            if score.status == ScoreStatus.SCORED and score.value is not None:
                values.append(score.value)
            else:
                missing += 1
        items.append(ItemSpread(item.item_id, run.trace_id, tuple(values), missing))
    return SpreadReport(scorer.id, fingerprint, backend, repeats, threshold, tuple(items))


def save_spread(root: Path, report: SpreadReport) -> Path:
    """Write the report to ``<root>/judge_spread/<metric>@<fingerprint>.json``; return the path."""
    folder = Path(root) / "judge_spread"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{report.metric_id}@{report.judge_fingerprint or 'none'}.json"
    path.write_text(json.dumps(report.to_json(), indent=2, sort_keys=True))
    return path
