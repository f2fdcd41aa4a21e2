"""Continuity correction for scores on a lattice (pass/fail metrics, 0/0.5/1 rubrics).

A mean of binary runs moves in steps of 1/(number of runs): its distribution has lumps, and a
bound compared with ``>=`` against a margin that sits on the lattice lets a lump through
(measured: a pass/fail metric at the margin passed 3.2% of the time instead of 2.5%). As with
Yates' correction, each bound is widened by half a lattice step of the estimate.

Where the estimate has no spread at all (every run of both builds agrees: a perfect pass
rate against a perfect baseline) there is no sampling distribution to correct, and the
interval stays the point, as in the reference; the power report says that a zero margin
cannot be resolved at any size.
"""

import numpy as np
import pandas as pd

MAX_LEVELS = 20


def value_step(values: np.ndarray) -> float:
    """The lattice step of ``values`` in [0, 1] (1/k for k <= MAX_LEVELS), or 0 if none."""
    values = values[np.isfinite(values)]
    if values.size == 0:
        return 0.0
    for k in range(1, MAX_LEVELS + 1):
        scaled = values * k
        if np.all(np.abs(scaled - np.round(scaled)) < 1e-9):
            return 1.0 / k
    return 0.0


def metric_steps(frames: list[pd.DataFrame], metric_ids: tuple[str, ...]) -> np.ndarray:
    """The lattice step of each metric's values across ``frames`` (0 off-lattice)."""
    codes = np.concatenate([f["metric_code"].to_numpy(dtype=np.int64) for f in frames])
    values = np.concatenate([f["value"].to_numpy(dtype=np.float64) for f in frames])
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(metric_ids) + 1))
    return np.array(
        [value_step(values[order[bounds[j] : bounds[j + 1]]]) for j in range(len(metric_ids))]
    )


def widen(
    low: np.ndarray, high: np.ndarray, steps: np.ndarray, runs: np.ndarray, se: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Bounds widened by half the lattice step of a mean over ``runs`` runs, per metric.

    Columns whose standard error ``se`` is 0 (no spread at all) are left as they are.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.where((runs > 0) & (se > 0), steps / (2.0 * np.maximum(runs, 1)), 0.0)
    return low - half, high + half
