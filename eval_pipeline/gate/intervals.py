"""Confidence bounds from bootstrap draws: expanded BCa, corrected for few items.

Two known weaknesses of the plain percentile bootstrap matter for a gate:

* With few items it is too narrow (the spread of a mean with divisor n, not n - 1, and no
  allowance for the t distribution's heavier tails). The *expanded* interval (Hesterberg,
  "What teachers should know about the bootstrap", 2015) replaces a one-sided tail ``a`` by
  the normal quantile ``z = sqrt(n / (n - 1)) * t_{n-1}^{-1}(1 - a)``.
* Near 0 or 1 (a pass rate of 0.9) the spread of a mean moves with the mean itself, so a
  candidate that happened to fail less also looks less noisy, and a percentile lower bound
  passes a regression at the margin too often. BCa (Efron 1987) corrects for this with a
  bias term ``z0`` (how far the draws sit from the estimate) and an acceleration ``acc``
  from the leave-one-item-out jackknife: the tail read off the draws is
  ``Phi(z0 + (z0 + z) / (1 - acc * (z0 + z)))``.

When the adjusted tail holds fewer than ``MIN_TAIL_DRAWS`` resamples (a tiny alpha after a
slice correction) the percentile would rest on a handful of draws, so the bound comes from a
normal approximation of the draws at the same adjusted level.
"""

import math
from functools import lru_cache

import numpy as np
from scipy import stats

MIN_TAIL_DRAWS = 20
_MAX_Z0 = 3.0


@lru_cache(maxsize=4096)
def expanded_z(tail: float, n: int) -> float:
    """The expanded normal quantile for a one-sided ``tail`` with ``n`` clusters (n >= 2)."""
    return math.sqrt(n / (n - 1)) * float(stats.t.isf(tail, n - 1))


def acceleration(jackknife: np.ndarray) -> float:
    """BCa acceleration from leave-one-cluster-out estimates (0 when undefined)."""
    values = jackknife[np.isfinite(jackknife)]
    if values.size < 3:
        return 0.0
    u = values.mean() - values
    denominator = 6.0 * float((u**2).sum()) ** 1.5
    return float((u**3).sum()) / denominator if denominator > 0 else 0.0


def _bias(point: float, draws: np.ndarray) -> float:
    below = float(np.count_nonzero(draws < point)) + 0.5 * np.count_nonzero(draws == point)
    share = min(max(below / draws.size, 1e-12), 1 - 1e-12)
    return float(np.clip(stats.norm.ppf(share), -_MAX_Z0, _MAX_Z0))


def _bound(point: float, draws: np.ndarray, z: float, z0: float, acc: float) -> float:
    shifted = z0 + z
    denominator = 1.0 - acc * shifted
    adjusted = z0 + shifted / denominator if denominator > 0 else math.copysign(np.inf, z)
    level = float(stats.norm.cdf(adjusted))
    if min(level, 1.0 - level) * draws.size >= MIN_TAIL_DRAWS:
        return float(np.quantile(draws, level))
    spread = float(np.std(draws, ddof=1))
    return point + spread * (float(np.clip(adjusted, -40.0, 40.0)) - z0)


def bounds(
    point: np.ndarray,
    draws: np.ndarray,
    n: np.ndarray,
    lower_tail: float,
    upper_tail: float,
    jackknife: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds per metric column.

    Args:
        point: Point estimates, shape (M,).
        draws: Bootstrap draws, shape (B, M); NaN draws (a resample with no score) are dropped.
        n: Independent items behind each column, shape (M,).
        lower_tail: One-sided error of the lower bound.
        upper_tail: One-sided error of the upper bound.
        jackknife: Leave-one-item-out estimates, shape (items, M), for the acceleration;
            None gives the bias-corrected interval without acceleration.

    Returns:
        Two arrays of shape (M,); NaN where there are fewer than two items or no point.
    """
    low = np.full(point.shape, np.nan)
    high = np.full(point.shape, np.nan)
    for j in range(point.shape[0]):
        column = draws[:, j]
        column = column[np.isfinite(column)]
        if n[j] < 2 or not np.isfinite(point[j]) or column.size < 2:
            continue
        estimate = float(point[j])
        z0 = _bias(estimate, column)
        acc = acceleration(jackknife[:, j]) if jackknife is not None else 0.0
        low[j] = _bound(estimate, column, -expanded_z(lower_tail, int(n[j])), z0, acc)
        high[j] = _bound(estimate, column, expanded_z(upper_tail, int(n[j])), z0, acc)
    return low, high


def standard_errors(draws: np.ndarray) -> np.ndarray:
    """Bootstrap standard error per column (NaN draws dropped)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(np.nanstd(draws, axis=0, ddof=1))


def _t_quantile(t: np.ndarray, level: float, fallback: float) -> float:
    finite_share = np.count_nonzero(np.isfinite(t)) / t.size
    if min(level, 1.0 - level) * t.size < MIN_TAIL_DRAWS or finite_share < 0.5:
        return fallback
    with np.errstate(invalid="ignore"):
        value = float(np.quantile(t, level))
    return value if np.isfinite(value) else fallback if abs(fallback) > 0 else value


def studentized_bounds(
    point: np.ndarray,
    se: np.ndarray,
    draws: np.ndarray,
    se_draws: np.ndarray,
    n: np.ndarray,
    lower_tail: float,
    upper_tail: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap-t bounds per metric column.

    Each resample's ``t = (draw - point) / se_draw``; the lower bound is
    ``point - t_{1 - lower_tail} * se`` and the upper ``point - t_{upper_tail} * se``. A tail
    too far out for the resamples (fewer than ``MIN_TAIL_DRAWS`` beyond it) uses the
    expanded normal quantile instead.

    Args:
        point: Point estimates, shape (M,).
        se: Their standard errors, shape (M,).
        draws: Bootstrap estimates, shape (B, M).
        se_draws: Each resample's own standard error, shape (B, M).
        n: Independent items behind each column, shape (M,).
        lower_tail: One-sided error of the lower bound.
        upper_tail: One-sided error of the upper bound.

    Returns:
        Two arrays of shape (M,); NaN where there are fewer than two items or no point.
    """
    low = np.full(point.shape, np.nan)
    high = np.full(point.shape, np.nan)
    for j in range(point.shape[0]):
        estimate, spread = float(point[j]), float(se[j])
        if n[j] < 2 or not (np.isfinite(estimate) and np.isfinite(spread)):
            continue
        keep = np.isfinite(draws[:, j])
        diff, scale = draws[keep, j] - estimate, se_draws[keep, j]
        if diff.size < 2:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            # A resample with no spread is exact only where it sits on the estimate.
            flat = np.where(diff == 0, 0.0, np.copysign(np.inf, diff))
            t = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), flat)
        z_low = expanded_z(lower_tail, int(n[j]))
        z_high = expanded_z(upper_tail, int(n[j]))
        low[j] = estimate - _t_quantile(t, 1.0 - lower_tail, z_low) * spread
        high[j] = estimate - _t_quantile(t, upper_tail, -z_high) * spread
    return low, high
