"""Drift: where the offline datasets no longer resemble the production traffic.

Two findings, each naming what drifted:

- **slice mix**: per slice dimension, the total variation distance between the traffic's
  estimated slice shares (Hajek, from the day's sample) and the shares of the suite's dataset
  items; above ``max_slice_tvd`` the datasets no longer weight the traffic's cases right.
- **metric gap**: a metric (over all traffic or one slice) whose online estimate and the
  deployed build's offline mean differ by more than their intervals allow: the difference's
  interval, sqrt(se_online^2 + se_offline^2) wide per z, excludes zero. The online error is
  the with-replacement one (``Estimate.se_wr``): the day's traces are draws of the agent's
  behaviour, as the offline runs are, not the fixed population the day's estimate is about.
  The level is Bonferroni-corrected over every comparison made, so a day with many slices
  does not drift by chance. Comparisons where either side has fewer than ``min_n`` scored
  values, or no interval, are listed as not compared.

A day that cannot be compared at all (no deployed build pinned, nothing scored) is reported
as such, never as "no drift".
"""

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

from eval_pipeline.realtime.online.estimates import LEVEL, total_variation
from eval_pipeline.realtime.online.scores import Comparison, OnlineScores

MAX_SLICE_TVD = 0.25
"""Largest total variation distance between traffic and dataset slice mixes that is not drift."""
MIN_N = 5
"""Fewest scored values on each side for a metric comparison."""


@dataclass(frozen=True)
class DriftReport:
    """What drifted (slice mixes, metric gaps), what could not be compared, and the verdict."""

    day: str
    deployed_build: str | None
    slice_mix: list[dict[str, Any]]
    metric_gaps: list[dict[str, Any]]
    not_compared: list[str] = field(default_factory=list)
    comparable: bool = True

    @property
    def drifted(self) -> list[str]:
        """One line per finding: the dimension or the metric and slice, with the figures."""
        lines = [
            f"slice mix {m['dimension']}: TVD {m['tvd']:.3f} > {m['max_tvd']:.3f}"
            for m in self.slice_mix
            if m["drift"]
        ]
        lines += [
            f"{g['metric_id']} [{g['slice']}]: online - offline = {g['gap']:+.3f}, "
            f"interval [{g['low']:+.3f}, {g['high']:+.3f}] excludes 0"
            for g in self.metric_gaps
            if g["drift"]
        ]
        return lines

    @property
    def passed(self) -> bool:
        """Comparable, and nothing drifted."""
        return self.comparable and not self.drifted

    def metadata(self) -> dict[str, Any]:
        """Plain metadata for the drift asset and its check."""
        import pandas as pd

        from eval_pipeline.evaluation.slices_stage import markdown_table

        return {
            "day": self.day,
            "deployed_build": self.deployed_build or "none",
            "comparable": self.comparable,
            "drifted": self.drifted,
            "slice_mix_md": markdown_table(pd.DataFrame(self.slice_mix)),
            "metric_gaps_md": markdown_table(pd.DataFrame(self.metric_gaps)),
            "not_compared": self.not_compared,
        }


def _gap(c: Comparison, z: float) -> dict[str, Any]:
    assert c.online.mean is not None and c.offline.mean is not None
    se = math.sqrt((c.online.se_wr or 0.0) ** 2 + (c.offline.se or 0.0) ** 2)
    gap = c.online.mean - c.offline.mean
    low, high = gap - z * se, gap + z * se
    return {
        "metric_id": c.metric_id,
        "slice": c.slice,
        "online": round(c.online.mean, 4),
        "offline": round(c.offline.mean, 4),
        "gap": round(gap, 4),
        "low": round(low, 4),
        "high": round(high, 4),
        "drift": bool(low > 0 or high < 0),
    }


def drift_report(
    scores: OnlineScores, *, max_slice_tvd: float = MAX_SLICE_TVD, min_n: int = MIN_N
) -> DriftReport:
    """The drift findings of one day's online scores (see the module docstring)."""
    not_compared: list[str] = []
    if scores.deployed_build is None:
        not_compared.append(f"suite {scores.suite}: no pinned baseline (the deployed build)")
    if scores.sampled_traces == 0:
        not_compared.append(f"day {scores.day}: no sampled trace was scored")
    mix = []
    for dimension, shares in scores.online_mix.items():
        online = {label: e.mean or 0.0 for label, e in shares.items()}
        tvd = total_variation(online, scores.offline_mix.get(dimension, {}))
        mix.append(
            {
                "dimension": dimension,
                "tvd": round(tvd, 4),
                "max_tvd": max_slice_tvd,
                "drift": tvd > max_slice_tvd,
            }
        )
    usable = []
    for c in scores.comparisons:
        if c.online.n < min_n or c.offline.n < min_n or c.online.se is None or c.offline.se is None:
            not_compared.append(
                f"{c.metric_id} [{c.slice}]: {c.online.n} online / {c.offline.n} offline scored"
            )
        else:
            usable.append(c)
    z = NormalDist().inv_cdf(1 - (1 - LEVEL) / (2 * max(len(usable), 1)))
    return DriftReport(
        scores.day,
        scores.deployed_build,
        mix,
        [_gap(c, z) for c in usable],
        not_compared,
        comparable=scores.deployed_build is not None and scores.sampled_traces > 0,
    )
