"""Clustered, paired, stratified bootstrap over dataset items (vectorised, seeded).

Runs of one item are not independent, so the unit of resampling is the item: a resample
draws items with replacement and keeps each item's runs together. Items scored by both
builds form the paired stratum and are drawn jointly (the same draw weights both builds, so
item difficulty cancels out of the delta); items only one build has are drawn separately in
their own strata. A mean is the run-weighted mean of the drawn items, computed for every
resample and every metric at once as ``weights @ item_sums / weights @ item_counts``.
"""

import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class ItemStats:
    """Per-item aggregates of one build: rows are items, columns are metrics."""

    items: tuple[str, ...]
    sums: np.ndarray
    sumsq: np.ndarray
    counts: np.ndarray

    @property
    def n_items(self) -> np.ndarray:
        """Items with at least one valid score, per metric."""
        return np.asarray((self.counts > 0).sum(axis=0))

    def rows(self, items: list[str]) -> "ItemStats":
        """The aggregates of ``items`` (all present), in that order."""
        position = {item: i for i, item in enumerate(self.items)}
        index = np.array([position[item] for item in items], dtype=np.int64)
        return ItemStats(tuple(items), self.sums[index], self.sumsq[index], self.counts[index])


def item_stats(
    frame: pd.DataFrame, metric_ids: tuple[str, ...], by: str | None = None
) -> dict[str | None, ItemStats]:
    """Aggregate valid scores per item (and per value of slice column ``by``).

    Args:
        frame: A normalised scores frame (see ``frame.normalise_scores``).
        metric_ids: Column order of the result.
        by: A slice column, or None for the whole frame.

    Returns:
        One :class:`ItemStats` per slice value (key None when ``by`` is None), items sorted.
        Items whose scores are all missing still get a row (count 0) so pairing sees them.
    """
    n_metrics = len(metric_ids)
    metric_codes = pd.Categorical(frame["metric_id"], categories=list(metric_ids)).codes
    item_codes, items = pd.factorize(frame["item_id"], sort=True)
    if by is None:
        group_codes, groups = np.zeros(len(frame), dtype=np.int64), [None]
    else:
        group_codes, group_values = pd.factorize(frame[by], sort=True)
        groups = [str(value) for value in group_values]
    size = len(groups) * len(items) * n_metrics
    key = (group_codes.astype(np.int64) * len(items) + item_codes) * n_metrics + metric_codes
    values = frame["value"].to_numpy(dtype=np.float64)
    valid = np.isfinite(values)
    shape = (len(groups), len(items), n_metrics)
    sums = np.bincount(key[valid], weights=values[valid], minlength=size).reshape(shape)
    sumsq = np.bincount(key[valid], weights=values[valid] ** 2, minlength=size).reshape(shape)
    counts = np.bincount(key[valid], minlength=size).reshape(shape).astype(np.float64)
    present = np.bincount(key, minlength=size).reshape(shape).sum(axis=2) > 0
    item_names = np.asarray([str(item) for item in items], dtype=object)
    out: dict[str | None, ItemStats] = {}
    for g, group in enumerate(groups):
        rows = present[g]
        out[group] = ItemStats(
            tuple(item_names[rows]), sums[g][rows], sumsq[g][rows], counts[g][rows]
        )
    if by is None and not out:
        empty = np.zeros((0, n_metrics))
        out[None] = ItemStats((), empty, empty, empty)
    return out


def seeded_rng(seed: int, key: str) -> np.random.Generator:
    """A generator for one cell: stable across runs, processes and evaluation order."""
    return np.random.default_rng([seed, zlib.crc32(key.encode())])


def resample_weights(rng: np.random.Generator, n: int, n_resamples: int) -> np.ndarray:
    """How often each of ``n`` clusters is drawn in each resample: shape (n_resamples, n)."""
    if n == 0:
        return np.zeros((n_resamples, 0))
    draws = rng.integers(0, n, size=(n_resamples, n))
    draws += np.arange(n_resamples)[:, None] * n
    counts = np.bincount(draws.ravel(), minlength=n_resamples * n)
    return counts.reshape(n_resamples, n).astype(np.float64)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


@dataclass(frozen=True)
class CellDraws:
    """Bootstrap draws of one cell (overall, or one slice value) for every metric.

    Shapes: points (M,), draws (B, M). ``base_*`` and ``delta_*`` are None without a baseline.
    ``n_cand``/``n_base``/``n_paired`` count items with valid scores, per metric.
    """

    cand_point: np.ndarray
    cand_draws: np.ndarray
    base_point: np.ndarray | None
    delta_point: np.ndarray | None
    delta_draws: np.ndarray | None
    n_cand: np.ndarray
    n_base: np.ndarray
    n_paired: np.ndarray
    cand_jackknife: np.ndarray
    delta_jackknife: np.ndarray | None


def _leave_one_out(part: ItemStats, total_sums: np.ndarray, total_counts: np.ndarray) -> np.ndarray:
    """Means of the whole with each of ``part``'s items left out, shape (items, M)."""
    return _ratio(total_sums - part.sums, total_counts - part.counts)


def draw_cell(
    cand: ItemStats, base: ItemStats | None, rng: np.random.Generator, n_resamples: int
) -> CellDraws:
    """Stratified paired cluster bootstrap of the candidate mean and of the delta."""
    cand_point = _ratio(cand.sums.sum(axis=0), cand.counts.sum(axis=0))
    if base is None:
        weights = resample_weights(rng, len(cand.items), n_resamples)
        draws = _ratio(weights @ cand.sums, weights @ cand.counts)
        zeros = np.zeros_like(cand_point, dtype=np.int64)
        jack = _leave_one_out(cand, cand.sums.sum(axis=0), cand.counts.sum(axis=0))
        return CellDraws(
            cand_point, draws, None, None, None, cand.n_items, zeros, zeros, jack, None
        )
    base_set = set(base.items)
    shared = [item for item in cand.items if item in base_set]
    shared_set = set(shared)
    c_only = [item for item in cand.items if item not in shared_set]
    b_only = [item for item in base.items if item not in shared_set]
    c_s, b_s = cand.rows(shared), base.rows(shared)
    c_o, b_o = cand.rows(c_only), base.rows(b_only)
    w_s = resample_weights(rng, len(shared), n_resamples)
    w_c = resample_weights(rng, len(c_only), n_resamples)
    w_b = resample_weights(rng, len(b_only), n_resamples)
    cand_draws = _ratio(w_s @ c_s.sums + w_c @ c_o.sums, w_s @ c_s.counts + w_c @ c_o.counts)
    base_draws = _ratio(w_s @ b_s.sums + w_b @ b_o.sums, w_s @ b_s.counts + w_b @ b_o.counts)
    base_point = _ratio(base.sums.sum(axis=0), base.counts.sum(axis=0))
    paired = np.asarray(((c_s.counts > 0) & (b_s.counts > 0)).sum(axis=0))
    c_tot, c_n = cand.sums.sum(axis=0), cand.counts.sum(axis=0)
    b_tot, b_n = base.sums.sum(axis=0), base.counts.sum(axis=0)
    cand_jack = _leave_one_out(cand, c_tot, c_n)
    delta_jack = np.concatenate([
        _leave_one_out(c_s, c_tot, c_n) - _leave_one_out(b_s, b_tot, b_n),
        _leave_one_out(c_o, c_tot, c_n) - base_point,
        cand_point - _leave_one_out(b_o, b_tot, b_n),
    ])
    return CellDraws(
        cand_point, cand_draws, base_point, cand_point - base_point, cand_draws - base_draws,
        cand.n_items, base.n_items, paired, cand_jack, delta_jack,
    )
