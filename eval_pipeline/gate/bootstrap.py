"""Clustered, paired, stratified bootstrap over dataset items (vectorised, seeded).

Runs of one item are not independent, so the unit of resampling is the item: a resample
draws items with replacement and keeps each item's runs together. Items scored by both
builds form the paired stratum and are drawn jointly (the same draw weights both builds, so
item difficulty cancels out of the delta); items only one build has are drawn separately in
their own strata. A mean is the run-weighted mean of the drawn items, computed for every
resample and every metric at once as ``weights @ item_sums / weights @ item_counts``.

Each resample also carries its own standard error (the linearised cluster variance of a
ratio mean, stratum by stratum), so intervals can be studentized (bootstrap-t). That matters
for pass rates near 0 or 1: a candidate that happened to fail less also looks less noisy,
and only a per-resample standard error sees that.

Memory is bounded: resamples are drawn and reduced in blocks (``resampling``), each stratum
from its own stream, so a block holds block x items weights and the results hold resamples x
metrics numbers, never resamples x items; the same seed gives the same draws whatever the
block size.
"""

from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from eval_pipeline.gate.items import ItemStats
from eval_pipeline.gate.resampling import block_rows, blocks, draw_weights

__all__ = ["CellDraws", "ItemObserver", "draw_cell"]


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
class _Stratum:
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
class _Estimate:
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


def _estimate(
    strata: list[tuple[np.ndarray, _Stratum, int]],
    m: int,
    *,
    has_base: bool,
    cand_se: bool,
) -> _Estimate:
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
    return _Estimate(
        mc.T,
        None if mb is None else mb.T,
        np.sqrt(np.maximum(var_c, 0.0)).T if var_c is not None else None,
        np.sqrt(np.maximum(var_d, 0.0)).T if var_d is not None else None,
    )


@dataclass(frozen=True)
class CellDraws:
    """Bootstrap draws of one cell (overall, or one slice value) for every metric.

    Shapes: points and standard errors (M,), draws (B, M). ``base_*`` and ``delta_*`` are
    None without a baseline. ``n_cand``/``n_base``/``n_paired`` count items with valid
    scores, per metric.
    """

    cand_point: np.ndarray
    cand_se: np.ndarray
    cand_draws: np.ndarray
    cand_se_draws: np.ndarray
    base_point: np.ndarray | None
    delta_point: np.ndarray | None
    delta_se: np.ndarray | None
    delta_draws: np.ndarray | None
    delta_se_draws: np.ndarray | None
    n_cand: np.ndarray
    n_base: np.ndarray
    n_paired: np.ndarray


class ItemObserver(Protocol):
    """Something resampled with the same draws as the candidate's scores (its runs)."""

    @property
    def items(self) -> tuple[str, ...]:
        """The candidate items it weighs, in the order ``consume`` receives them."""
        ...

    @property
    def bytes_per_resample(self) -> int:
        """Its working memory per resample, besides the weights."""
        ...

    def consume(self, rows: slice, weights: np.ndarray) -> None:
        """One block of resamples: ``weights`` (rows, items) of its items."""
        ...


def draw_cell(
    cand: ItemStats,
    base: ItemStats | None,
    rng: np.random.Generator,
    n_resamples: int,
    *,
    cand_interval: bool = True,
    observer: ItemObserver | None = None,
) -> CellDraws:
    """Stratified paired cluster bootstrap of the candidate mean and of the delta.

    ``cand_interval=False`` skips the per-resample standard error of the candidate mean
    (``cand_se_draws`` is NaN), for cells where only the delta is decided. ``n_resamples``
    may be 0: points and standard errors only (draws have no rows). ``observer`` receives
    each block's weights of candidate items, so the budgets are resampled with the draws
    that weigh the scores.
    """
    m = cand.sums.shape[1]
    if base is None:
        groups: list[tuple[ItemStats | None, ItemStats | None]] = [(cand, None)]
        paired = np.zeros(m, dtype=np.int64)
    else:
        base_set = set(base.items)
        shared = [item for item in cand.items if item in base_set]
        shared_set = set(shared)
        c_s, b_s = cand.rows(shared), base.rows(shared)
        groups = [
            (c_s, b_s),
            (cand.rows([i for i in cand.items if i not in shared_set]), None),
            (None, base.rows([i for i in base.items if i not in shared_set])),
        ]
        paired = np.asarray(((c_s.counts > 0) & (b_s.counts > 0)).sum(axis=0))
    # One stream per stratum, so each stratum's draws do not depend on the block size.
    streams = rng.spawn(len(groups))
    strata = []
    for g, ((c, b), stream) in enumerate(zip(groups, streams, strict=True)):
        n_h = len((c or b).items)  # type: ignore[union-attr]
        if n_h:
            strata.append((_Stratum(c, b, n_h, m), n_h, stream, g))
    # The candidate's items sit in the first one or two strata (paired, candidate only).
    cand_groups = [c for c, _ in groups if c is not None]
    drawn_order = {item: k for k, item in enumerate(i for c in cand_groups for i in c.items)}
    observed = (
        np.array([drawn_order[item] for item in observer.items], dtype=np.int64)
        if observer is not None
        else None
    )
    if observed is not None and np.array_equal(observed, np.arange(len(drawn_order))):
        observed = None  # the observer's order is the strata's: no reordering to do
    has_base = base is not None
    shape = (n_resamples, m)
    cand_draws, cand_se_draws = np.full(shape, np.nan), np.full(shape, np.nan)
    base_draws, delta_se_draws = np.full(shape, np.nan), np.full(shape, np.nan)
    if not strata:  # neither build has an item: every estimate is undefined
        nan = np.full(m, np.nan)
        point = _Estimate(nan[None], nan[None] if has_base else None, nan[None], nan[None])
    else:
        sample = [(np.ones((1, n_h)), stratum, n_h) for stratum, n_h, _, _ in strata]
        point = _estimate(sample, m, has_base=has_base, cand_se=True)
        total = sum(n_h for _, n_h, _, _ in strata)
        # Per resample besides the weights: 14 sums and ~10 intermediates per metric.
        extra = 8 * 24 * m * len(strata) + (observer.bytes_per_resample if observer else 0)
        for rows in blocks(n_resamples, block_rows(total, n_resamples, extra)):
            size = rows.stop - rows.start
            drawn = [(draw_weights(s, n_h, size), st, n_h) for st, n_h, s, _ in strata]
            boot = _estimate(drawn, m, has_base=has_base, cand_se=cand_interval)
            cand_draws[rows] = boot.cand
            if boot.cand_se is not None:
                cand_se_draws[rows] = boot.cand_se
            if boot.base is not None and boot.delta_se is not None:
                base_draws[rows] = boot.base
                delta_se_draws[rows] = boot.delta_se
            if observer is not None:
                by_group = {g: w for (w, _, _), (_, _, _, g) in zip(drawn, strata, strict=True)}
                parts = [by_group[g] for g in range(len(cand_groups)) if g in by_group]
                joined = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
                observer.consume(rows, joined if observed is None else joined[:, observed])
    assert point.cand_se is not None
    zeros = np.zeros(m, dtype=np.int64)
    if base is None or point.base is None:
        return CellDraws(
            point.cand[0],
            point.cand_se[0],
            cand_draws,
            cand_se_draws,
            None,
            None,
            None,
            None,
            None,
            cand.n_items,
            zeros,
            zeros,
        )
    assert point.delta_se is not None
    return CellDraws(
        point.cand[0],
        point.cand_se[0],
        cand_draws,
        cand_se_draws,
        point.base[0],
        point.cand[0] - point.base[0],
        point.delta_se[0],
        cand_draws - base_draws,
        delta_se_draws,
        cand.n_items,
        base.n_items,
        paired,
    )
