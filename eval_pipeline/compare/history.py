"""A metric across the builds of a suite: each build's mean, interval and gate verdict.

One point per build that has scores of the metric, in the order the builds were registered:
the mean over items of each item's mean over runs (the gate's unit), with a 95% t interval
clustered by item (clipped to [0, 1], where scores lie), and its flaky items (``flaky``).
Where the build was gated, the point carries the metric's verdict and the release decision
from its stored gate report, and the build it was gated against; the suite's pinned
baseline, and every build some gate used as its baseline, are marked. The caller reads the
registry and the stored gate reports.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from eval_pipeline.compare.flaky import FlakyItem, flaky_items

CONFIDENCE = 0.95


@dataclass(frozen=True)
class HistoryPoint:
    """One build's standing on one metric."""

    build: str
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    n_items: int
    pinned: bool = False
    baseline_of: tuple[str, ...] = ()
    gated_against: str | None = None
    verdict: str | None = None
    release: str | None = None
    flaky: tuple[FlakyItem, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """The point as JSON."""
        return {
            "build": self.build,
            "mean": self.mean,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "n_items": self.n_items,
            "pinned_baseline": self.pinned,
            "baseline_of": list(self.baseline_of),
            "gated_against": self.gated_against,
            "verdict": self.verdict,
            "release": self.release,
            "flaky": [f.to_json() for f in self.flaky],
        }


def mean_interval(frame: pd.DataFrame, metric_id: str) -> tuple[float | None, ...]:
    """(mean, low, high, items) of the metric over items, runs averaged within each item."""
    rows = frame[(frame["metric_id"] == metric_id) & (frame["status"] == "scored")]
    means = rows[rows["value"].notna()].groupby("item_id")["value"].mean().to_numpy()
    n = len(means)
    if n == 0:
        return None, None, None, 0
    mean = float(means.mean())
    if n < 2:
        return mean, None, None, n
    half = float(stats.t.ppf((1 + CONFIDENCE) / 2, n - 1) * means.std(ddof=1) / np.sqrt(n))
    return mean, max(mean - half, 0.0), min(mean + half, 1.0), n  # scores lie in [0, 1]


def _gate_facts(report: Mapping[str, Any] | None, metric_id: str) -> tuple[str | None, ...]:
    if not report:
        return None, None, None
    verdict = next(
        (m.get("verdict") for m in report.get("metrics", []) if m.get("metric_id") == metric_id),
        None,
    )
    release = "no-go" if report.get("blocking") else "go"
    return report.get("baseline"), verdict, release


def metric_history(
    frames: Sequence[tuple[str, pd.DataFrame]],
    metric_id: str,
    *,
    pinned: str | None = None,
    gate_reports: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[HistoryPoint]:
    """One point per build (in the order given) that has scores of ``metric_id``."""
    reports = gate_reports or {}
    baseline_of: dict[str, list[str]] = {}
    for build, report in reports.items():
        if report.get("baseline"):
            baseline_of.setdefault(str(report["baseline"]), []).append(build)
    points = []
    for build, frame in frames:
        if frame.empty or metric_id not in set(frame["metric_id"]):
            continue
        mean, low, high, n = mean_interval(frame, metric_id)
        against, verdict, release = _gate_facts(reports.get(build), metric_id)
        points.append(
            HistoryPoint(
                build,
                mean,
                low,
                high,
                int(n or 0),
                pinned=build == pinned,
                baseline_of=tuple(baseline_of.get(build, ())),
                gated_against=against,
                verdict=verdict,
                release=release,
                flaky=tuple(flaky_items(frame, metric_id)),
            )
        )
    return points
