"""Power: the smallest regression a suite of this size can show, and what the margin needs.

With the bootstrap standard error ``se`` of delta, a regression of size ``d`` beyond the
margin is shown (verdict ``fail``) with probability ``power`` when
``d >= (z_fail + z_power) * se``; that quantity is the *minimum detectable regression*
(MDR). The suite can resolve its margin m when MDR <= m: then a candidate without a
regression passes, and one regressing by 2m fails, each at least ``power`` of the time.

To say what the margin would need, se^2 is split as ``(s_b^2 + s_w^2 / k) / n`` (n items,
k runs per item, s_w^2 the pooled within-item run variance of both builds, s_b^2 the
between-item variance that remains); more runs shrink only the s_w^2 part, more items both.
"""

import math
from dataclasses import dataclass
from functools import lru_cache

from scipy import stats

from eval_pipeline.gate.items import ItemStats


@dataclass(frozen=True)
class PowerReport:
    """Power of one metric's comparison (None fields: not computable)."""

    standard_error: float | None
    min_detectable_regression: float | None
    margin: float
    margin_detectable: bool
    items: int
    runs_per_item: float
    items_needed: int | None
    runs_per_item_needed: int | None
    note: str

    def to_json(self) -> dict[str, object]:
        """JSON-safe form."""
        return {
            "standard_error": self.standard_error,
            "min_detectable_regression": self.min_detectable_regression,
            "margin": self.margin,
            "margin_detectable": self.margin_detectable,
            "items": self.items,
            "runs_per_item": self.runs_per_item,
            "items_needed": self.items_needed,
            "runs_per_item_needed": self.runs_per_item_needed,
            "note": self.note,
        }


@lru_cache(maxsize=256)
def _z(fail_tail: float, power: float) -> float:
    return float(stats.norm.isf(fail_tail) + stats.norm.ppf(power))


def within_item_variance(stats_: ItemStats, column: int) -> float:
    """Pooled variance of runs around their item's mean (0 when no item has two runs)."""
    sums, sq, counts = stats_.sums[:, column], stats_.sumsq[:, column], stats_.counts[:, column]
    several = counts >= 2
    if not several.any():
        return 0.0
    numerator = float((sq[several] - sums[several] ** 2 / counts[several]).sum())
    return max(numerator, 0.0) / float((counts[several] - 1).sum())


def power_report(
    *,
    se: float,
    margin: float,
    fail_tail: float,
    power: float,
    cand: ItemStats,
    base: ItemStats,
    column: int,
    min_items: int = 2,
) -> PowerReport:
    """Power of a comparison whose delta has bootstrap standard error ``se``.

    With fewer than ``min_items`` items there is no interval to fail on, so no regression is
    detectable, whatever the standard error (one item has none).
    """
    counts = cand.counts[:, column]
    items = int((counts > 0).sum())
    runs = float(counts[counts > 0].mean()) if items else 0.0
    z = _z(fail_tail, power)
    if not math.isfinite(se) or items == 0:
        return PowerReport(None, None, margin, False, items, runs, None, None, "no interval")
    if items < max(min_items, 2):
        note = (
            f"too few items ({items}) for an interval: no regression can be detected "
            f"(needs at least {max(min_items, 2)} items)"
        )
        return PowerReport(se, None, margin, False, items, runs, None, None, note)
    mdr = z * se
    detectable = margin > 0 and mdr <= margin
    if margin <= 0:
        return PowerReport(
            se,
            mdr,
            margin,
            False,
            items,
            runs,
            None,
            None,
            "a zero margin cannot be resolved at any size: expect inconclusive unless the "
            "candidate is shown to improve",
        )
    target = (margin / z) ** 2
    within = within_item_variance(cand, column) + within_item_variance(base, column)
    between = max(items * se**2 - within / max(runs, 1.0), 0.0)
    items_needed = max(math.ceil((between + within / max(runs, 1.0)) / target), 2)
    spare = items * target - between
    runs_needed = math.ceil(within / spare) if spare > 0 and within > 0 else None
    if detectable:
        note = f"resolves its margin: a regression of {mdr:.3g} beyond it is caught {power:.0%}"
    else:
        more_runs = (
            f" or {runs_needed} runs per item"
            if runs_needed is not None
            else " (more runs per item alone cannot reach it)"
        )
        note = (
            f"too small for its margin {margin:g}: can only detect {mdr:.3g}; "
            f"needs {items_needed} items{more_runs}"
        )
    return PowerReport(se, mdr, margin, detectable, items, runs, items_needed, runs_needed, note)
