"""Ratio means and their linearised cluster standard errors, for many weightings at once.

The bootstrap (``bootstrap.draw_cell``) weighs each stratum's items by how often a resample
drew them; every estimate it needs is then a ratio of weighted item sums. This module holds
that arithmetic: a stratum's item quantities as one matrix (``Stratum``), their weighted sums
for R weightings in one product, and from those the candidate and baseline run-weighted means
and the standard errors of the candidate mean and of the paired delta (``estimate``). The
sample itself is the weighting of all ones (R = 1); a block of resamples is R rows.

It is its own module because it is the statistics, apart from the drawing: the formulas here
are the linearised stratified cluster variance of a ratio mean, and nothing in them knows
how the weights were drawn.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from eval_pipeline.gate.items import ItemStats

__all__ = ["Estimate", "Stratum", "estimate"]


_C_S, _C_C, _C_SS, _C_SC, _C_CC, _B_S, _B_C, _B_SS, _B_SC, _B_CC, _X_SS, _X_SC, _X_CS, _X_CC = (
    range(14)
)


def _products(cand: ItemStats | None, base: ItemStats | None, n: int, m: int) -> np.ndarray:
    """Item columns whose weighted sums give means and variances: shape (n, 14 * m)."""
    zero = np.zeros((n, m))
    cs, cc = (cand.sums, cand.counts) if cand is not None else (zero, zero)
    bs, bc = (base.sums, base.counts) if base is not None else (zero, zero)
    parts = [cs, cc, cs * cs, cs * cc, cc * cc, bs, bc, bs * bs, bs * bc, bc * bc,
             cs * bs, cs * bc, cc * bs, cc * bc]  # fmt: skip
    return np.concatenate(parts, axis=1)


def _constant_count(part: ItemStats | None) -> float | None:
    """The one run count every item and metric of ``part`` has (0 when absent), else None."""
    if part is None or part.counts.size == 0:
        return 0.0
    first = float(part.counts.flat[0])
    return first if bool(np.all(part.counts == first)) else None


@dataclass(frozen=True)
class Stratum:
    """One stratum's items (candidate and/or baseline rows) and their weighted sums."""

    cand: ItemStats | None
    base: ItemStats | None
    n: int
    m: int

    @cached_property
    def _counts(self) -> tuple[float, float] | None:
        k_c, k_b = _constant_count(self.cand), _constant_count(self.base)
        return None if k_c is None or k_b is None else (k_c, k_b)

    @cached_property
    def matrix(self) -> np.ndarray:
        """Item columns whose weighted sums the estimates need (built once per stratum).

        With complete scores every count is the same constant, and 9 of the 14 quantities
        are multiples of the other 5 or of the total weight: 1 + 5m columns instead of 14m.
        """
        if self._counts is None:
            return _products(self.cand, self.base, self.n, self.m)
        zero = np.zeros((self.n, self.m))
        cs = self.cand.sums if self.cand is not None else zero
        bs = self.base.sums if self.base is not None else zero
        return np.concatenate([np.ones((self.n, 1)), cs, cs * cs, bs, bs * bs, cs * bs], 1)

    def weighted_sums(self, weights: np.ndarray) -> list[np.ndarray]:
        """Weighted sums of the 14 item quantities, each of shape (m, R) or (1, R)."""
        m = self.m
        y = self.matrix.T @ weights.T
        if self._counts is None:
            return [y[k * m : (k + 1) * m] for k in range(14)]
        k_c, k_b = self._counts
        total = y[:1]
        s_c, ss_c, s_b, ss_b, x_ss = (y[1 + i * m : 1 + (i + 1) * m] for i in range(5))
        out = [s_c, k_c * total, ss_c, k_c * s_c, k_c * k_c * total]
        out += [s_b, k_b * total, ss_b, k_b * s_b, k_b * k_b * total]
        return [*out, x_ss, k_b * s_c, k_c * s_b, k_c * k_b * total]


@dataclass(frozen=True)
class Estimate:
    """Means and standard errors for R weightings (R = 1 for the sample itself).

    ``cand_se`` is None when not asked for; ``base`` and ``delta_se`` are None without a
    baseline.
    """

    cand: np.ndarray
    base: np.ndarray | None
    cand_se: np.ndarray | None
    delta_se: np.ndarray | None


def _square(part: list[np.ndarray], mean: np.ndarray, ss: int, sc: int, cc: int) -> np.ndarray:
    """Weighted sum of the squared contributions ``(s - mean c)^2`` of a stratum's items."""
    out = mean * part[sc]
    out *= -2.0
    out += part[ss]
    out += mean * mean * part[cc]
    return np.asarray(out)


def estimate(
    strata: list[tuple[np.ndarray, Stratum, int]],
    m: int,
    *,
    has_base: bool,
    cand_se: bool,
) -> Estimate:
    """Ratio means and linearised stratified cluster standard errors.

    ``strata``: (weights (R, n_h), stratum, n_h) per stratum. With
    ``e_i = s_i - mean * c_i`` per item, a stratum adds ``n_h / (n_h - 1)`` times the spread
    of its items' contributions ``e_i / D`` (candidate minus baseline for a delta).
    """
    parts = [stratum.weighted_sums(w) for w, stratum, _ in strata]
    total = parts[0]
    for part in parts[1:]:
        total = [a + b for a, b in zip(total, part, strict=True)]

    def col(block: list[np.ndarray], k: int) -> np.ndarray:
        return block[k]

    with np.errstate(invalid="ignore", divide="ignore"):
        dc, db = col(total, _C_C), col(total, _B_C)
        mc = col(total, _C_S) / dc
        mb = col(total, _B_S) / db if has_base else None
        var_c = np.zeros_like(mc) if cand_se else None
        var_d = np.zeros_like(mc) if has_base else None
        # A lone stratum holds every item: its items' contributions sum to zero by definition
        # of the mean, so the centring terms vanish and are not computed.
        alone = len(parts) == 1
        for part, (_, _, n_h) in zip(parts, strata, strict=True):
            if n_h < 2:
                continue
            factor = n_h / (n_h - 1)
            sq_c = _square(part, mc, _C_SS, _C_SC, _C_CC) / (dc * dc)
            lin_c = None if alone else (col(part, _C_S) - mc * col(part, _C_C)) / dc
            if var_c is not None:
                var_c += factor * (sq_c if lin_c is None else sq_c - lin_c * lin_c / n_h)
            if var_d is None or mb is None:
                continue
            sq_b = _square(part, mb, _B_SS, _B_SC, _B_CC) / (db * db)
            cross = mc * col(part, _X_CS)
            cross += mb * col(part, _X_SC)
            cross -= col(part, _X_SS)
            cross -= mc * mb * col(part, _X_CC)
            cross /= dc * db  # minus the cross term
            spread = sq_c + sq_b
            spread += 2 * cross
            if not alone:
                lin = lin_c - (col(part, _B_S) - mb * col(part, _B_C)) / db  # type: ignore[operator]
                spread -= lin * lin / n_h
            var_d += factor * spread
    return Estimate(
        mc.T,
        None if mb is None else mb.T,
        np.sqrt(np.maximum(var_c, 0.0)).T if var_c is not None else None,
        np.sqrt(np.maximum(var_d, 0.0)).T if var_d is not None else None,
    )
