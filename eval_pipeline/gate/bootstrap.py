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
block size. The estimates for a block of weights are ``cluster_estimate``'s.
"""

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from eval_pipeline.gate.cluster_estimate import Estimate, Stratum, estimate
from eval_pipeline.gate.items import ItemStats
from eval_pipeline.gate.resampling import block_rows, blocks, draw_weights

__all__ = ["CellDraws", "ItemObserver", "draw_cell"]


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
            strata.append((Stratum(c, b, n_h, m), n_h, stream, g))
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
        point = Estimate(nan[None], nan[None] if has_base else None, nan[None], nan[None])
    else:
        sample = [(np.ones((1, n_h)), stratum, n_h) for stratum, n_h, _, _ in strata]
        point = estimate(sample, m, has_base=has_base, cand_se=True)
        total = sum(n_h for _, n_h, _, _ in strata)
        # Per resample besides the weights: 14 sums and ~10 intermediates per metric.
        extra = 8 * 24 * m * len(strata) + (observer.bytes_per_resample if observer else 0)
        for rows in blocks(n_resamples, block_rows(total, n_resamples, extra)):
            size = rows.stop - rows.start
            drawn = [(draw_weights(s, n_h, size), st, n_h) for st, n_h, s, _ in strata]
            boot = estimate(drawn, m, has_base=has_base, cand_se=cand_interval)
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
