"""Per-run statistics of the budgets (p95, mean) for every resample of items.

Budgets are measured per run (latency, cost) and resampled by item, as scores are. One
stream of item weights serves every budget, block by block (``resampling``), so memory stays
bounded and the same seed gives the same draws.

The p95 is the inverted-CDF quantile: the first run, in value order, whose running weight
reaches 95% of the total. Only the top of the order can hold it, so each resample looks at a
window of the highest runs; a resample whose p95 falls below the window (its top runs were
barely drawn) is computed over every run, so the result is exact either way.
"""

from dataclasses import dataclass

import numpy as np

from eval_pipeline.gate.resampling import seeded_rng, weight_blocks

WINDOW_SHARE = 0.25
"""Share of the highest runs each resample's p95 is looked for in first."""


def p95(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Inverted-CDF p95 of sorted ``values`` for each row of integer run weights (B, R).

    Integer arithmetic: the first run with ``100 * running >= 95 * total`` (no rounding at the
    boundary). Rows are laid end to end with an offset each, so one ``searchsorted`` finds
    every row's run.
    """
    rows, n = weights.shape
    running = np.cumsum(weights, axis=1, dtype=np.int64)
    total = running[:, -1]
    target = (95 * total + 99) // 100  # the smallest integer >= 0.95 * total
    offset = np.arange(rows, dtype=np.int64) * (int(total.max(initial=0)) + 1)
    running += offset[:, None]
    index = np.searchsorted(running.ravel(), target + offset) - np.arange(rows) * n
    return np.asarray(values[np.minimum(index, n - 1)])


@dataclass(frozen=True)
class _P95:
    """A p95 over runs in value order: the values and each run's item."""

    values: np.ndarray
    run_item: np.ndarray
    window: int

    def draws(self, weights: np.ndarray, runs_per_item: np.ndarray) -> np.ndarray:
        """The p95 of each resample (row of item weights)."""
        counts = weights.astype(np.int64)
        total = counts @ runs_per_item
        target = (95 * total + 99) // 100
        n, w = self.values.size, self.window
        top = counts[:, self.run_item[n - w :]]
        after = np.cumsum(top[:, ::-1], axis=1)[:, ::-1] - top  # weight beyond each run
        before_window = total - (after[:, 0] + top[:, 0])
        found = (total[:, None] - after) >= target[:, None]
        out = self.values[n - w + found.argmax(axis=1)]
        below = np.flatnonzero(before_window >= target)
        if below.size:
            out[below] = p95(self.values, counts[below][:, self.run_item])
        return np.asarray(out)


def budget_draws(
    item_index: np.ndarray,
    n_items: int,
    columns: dict[str, tuple[str, np.ndarray]],
    *,
    seed: int,
    n_resamples: int,
) -> dict[str, np.ndarray]:
    """Resampled statistic of each budgeted column: ``{column: (kind, per-run values)}``.

    ``item_index`` maps each run to its item; ``kind`` is ``p95`` or ``mean``.
    """
    runs_per_item = np.bincount(item_index, minlength=n_items).astype(np.int64)
    quantiles, means = {}, {}
    for column, (kind, values) in columns.items():
        if kind == "p95":
            order = np.argsort(values, kind="stable")
            window = min(values.size, max(64, int(np.ceil(WINDOW_SHARE * values.size))))
            quantiles[column] = _P95(values[order], item_index[order], window)
        else:
            means[column] = np.bincount(item_index, weights=values, minlength=n_items)
    draws = {column: np.empty(n_resamples) for column in columns}
    per_resample = 16 * max(q.window for q in quantiles.values()) if quantiles else 0
    rng = seeded_rng(seed, "budgets")
    for rows, weights in weight_blocks(rng, n_items, n_resamples, per_resample):
        for column, quantile in quantiles.items():
            draws[column][rows] = quantile.draws(weights, runs_per_item)
        for column, sums in means.items():
            draws[column][rows] = (weights @ sums) / (weights @ runs_per_item)
    return draws
