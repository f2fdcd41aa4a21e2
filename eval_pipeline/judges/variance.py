"""Judge variance: k repeated verdicts per item -> spread -> runs per item for a target width.

A one-way random-effects split of the scores: between-item variance (items differ: more runs
cannot remove it) and within-item variance (the judge, or the agent, disagreeing with itself:
more runs average it away). With ``n`` items and ``r`` runs each, the variance of the suite mean
is ``(between + within / r) / n``; the advice is the smallest ``r`` whose normal interval on
the mean is no wider than the target, or ``None`` when only more items can get there.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import numpy as np


@dataclass(frozen=True)
class VarianceSplit:
    """Spread of repeated scores: per-item standard deviations and the variance components."""

    n_items: int
    runs_per_item: float
    per_item_std: dict[str, float]
    within_variance: float
    between_variance: float
    icc: float | None

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return asdict(self)


@dataclass(frozen=True)
class RunsAdvice:
    """How many runs per item the target interval width needs (None: not reachable by runs)."""

    runs_per_item: int | None
    target_width: float
    width_with_one_run: float
    width_at_advice: float | None
    n_items: int
    reason: str
    split: VarianceSplit

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return asdict(self)


def variance_split(scores: Mapping[str, Sequence[float]]) -> VarianceSplit:
    """Per-item std and pooled within / between-item variance (ANOVA estimator, floored at 0).

    Raises:
        ValueError: fewer than two items, or no item with at least two scores.
    """
    groups = {item: np.asarray(values, dtype=float) for item, values in scores.items()}
    groups = {item: v[np.isfinite(v)] for item, v in groups.items()}
    groups = {item: v for item, v in groups.items() if v.size}
    if len(groups) < 2:
        raise ValueError("judge variance needs scores for at least two items")
    sizes = np.array([v.size for v in groups.values()], dtype=float)
    if not np.any(sizes >= 2):
        raise ValueError("judge variance needs at least two repeated scores for some item")
    total, k = sizes.sum(), len(groups)
    grand = sum(v.sum() for v in groups.values()) / total
    ss_within = sum(((v - v.mean()) ** 2).sum() for v in groups.values())
    ss_between = sum(v.size * (v.mean() - grand) ** 2 for v in groups.values())
    ms_within = ss_within / (total - k) if total > k else 0.0
    ms_between = ss_between / (k - 1)
    k0 = (total - (sizes**2).sum() / total) / (k - 1)  # effective runs per item, unbalanced
    between = max(0.0, (ms_between - ms_within) / k0)
    denominator = between + ms_within
    return VarianceSplit(
        n_items=k,
        runs_per_item=float(total / k),
        per_item_std={
            item: float(v.std(ddof=1)) if v.size > 1 else 0.0 for item, v in groups.items()
        },
        within_variance=float(ms_within),
        between_variance=float(between),
        icc=float(between / denominator) if denominator > 0 else None,
    )


def _width(split: VarianceSplit, n_items: int, runs: int, z: float) -> float:
    return 2.0 * z * math.sqrt((split.between_variance + split.within_variance / runs) / n_items)


def runs_per_item_advice(
    scores: Mapping[str, Sequence[float]],
    target_width: float,
    *,
    n_items: int | None = None,
    confidence: float = 0.95,
    max_runs: int = 100,
) -> RunsAdvice:
    """The smallest runs per item for a ``confidence`` interval on the mean of width <= target.

    Args:
        scores: repeated scores per item (the k verdicts of one judge, or k agent runs).
        target_width: the full width wanted for the interval on the suite mean.
        n_items: suite size the advice is for (default: the items in ``scores``).
        confidence: the interval's confidence level.
        max_runs: the largest advice given; beyond it the answer is ``None``.
    """
    split = variance_split(scores)
    items = n_items or split.n_items
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    one = _width(split, items, 1, z)
    floor = 2.0 * z * math.sqrt(split.between_variance / items)
    if one <= target_width:
        return RunsAdvice(1, target_width, one, one, items, "one run per item is enough", split)
    budget = items * (target_width / (2.0 * z)) ** 2 - split.between_variance
    if budget <= 0:
        return RunsAdvice(
            None,
            target_width,
            one,
            None,
            items,
            f"between-item variance alone gives width {floor:.3f} > target: add items, not runs",
            split,
        )
    runs = math.ceil(split.within_variance / budget - 1e-12)
    if runs > max_runs:
        return RunsAdvice(
            None,
            target_width,
            one,
            None,
            items,
            f"needs {runs} runs per item (> {max_runs}): add items instead",
            split,
        )
    return RunsAdvice(
        runs,
        target_width,
        one,
        _width(split, items, runs, z),
        items,
        f"{runs} runs per item reach width {_width(split, items, runs, z):.3f}",
        split,
    )
