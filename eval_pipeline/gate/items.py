"""Per-item aggregates of a scores frame: the clusters the bootstrap resamples.

A build's valid scores are summed per item (and per slice value) and metric: sums, sums of
squares and counts, as arrays (items x metrics) built with one ``bincount`` each over the
(slice value, item) pairs present, so many slice values cost linear time.
"""

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
    metric_codes = frame["metric_code"].to_numpy(dtype=np.int64)
    item_codes, items = pd.factorize(frame["item_id"], sort=True)
    groups: list[str | None] = [None]
    if by is None:
        group_codes = np.zeros(len(frame), dtype=np.int64)
    else:
        group_codes, group_values = pd.factorize(frame[by], sort=True)
        groups = [str(value) for value in group_values]
    # Only the (slice value, item) pairs the frame holds get a row: a dense (values x items)
    # array is quadratic when every slice value has its own items (10,000 values: minutes).
    pair_codes, pairs = pd.factorize(
        group_codes.astype(np.int64) * len(items) + item_codes, sort=True
    )
    pairs = np.asarray(pairs, dtype=np.int64)
    size = len(pairs) * n_metrics
    key = pair_codes.astype(np.int64) * n_metrics + metric_codes
    values = frame["value"].to_numpy(dtype=np.float64)
    valid = np.isfinite(values)
    shape = (len(pairs), n_metrics)
    sums = np.bincount(key[valid], weights=values[valid], minlength=size).reshape(shape)
    sumsq = np.bincount(key[valid], weights=values[valid] ** 2, minlength=size).reshape(shape)
    counts = np.bincount(key[valid], minlength=size).reshape(shape).astype(np.float64)
    pair_groups, pair_items = np.divmod(pairs, max(len(items), 1))
    # Sorted pairs: each slice value's rows are one run, its items in sorted order.
    bounds = np.searchsorted(pair_groups, np.arange(len(groups) + 1))
    item_names = np.asarray([str(item) for item in items], dtype=object)
    out: dict[str | None, ItemStats] = {}
    for g, group in enumerate(groups):
        rows = slice(bounds[g], bounds[g + 1])
        out[group] = ItemStats(
            tuple(item_names[pair_items[rows]]), sums[rows], sumsq[rows], counts[rows]
        )
    return out
