"""Per-run statistics of the budgets (p95, mean) for every resample of items.

Budgets are measured per run (latency, cost) and resampled by item, as scores are: the
candidate's items are drawn once per resample, and the same draws weigh its scores and its
runs (``BudgetDraws`` watches the overall cell's blocks of draws, so memory stays bounded).

The p95 is the inverted-CDF quantile: the first run, in value order, whose running weight
reaches 95% of the total. Only the top of the order can hold it, so each resample looks at a
window of the highest runs; a resample whose p95 falls below the window (its top runs were
barely drawn) is computed over every run, so the result is exact either way.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

WINDOW_SHARE = 0.06
"""Share of the highest runs each resample's p95 is looked for in first (the p95 leaves 5%
of the runs above it, so the window misses only a resample that barely drew its top)."""
WINDOW_MIN = 32


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

    def draws(self, weights: np.ndarray, total: np.ndarray) -> np.ndarray:
        """The p95 of each resample (row of item weights; ``total``: its run weight).

        Weights are whole numbers held as doubles: their sums stay exact far beyond any suite.
        """
        target = (95 * np.rint(total).astype(np.int64) + 99) // 100  # as in ``p95``
        n, w = self.values.size, self.window
        top = weights[:, self.run_item[n - w :]]
        after = np.cumsum(top[:, ::-1], axis=1)[:, ::-1] - top  # weight beyond each run
        before_window = total - (after[:, 0] + top[:, 0])
        found = (total[:, None] - after) >= target[:, None]
        out = self.values[n - w + found.argmax(axis=1)]
        below = np.flatnonzero(before_window >= target)
        if below.size:
            counts = weights[below].astype(np.int64)[:, self.run_item]
            out[below] = p95(self.values, counts)
        return np.asarray(out)


class BudgetDraws:
    """The resampled budget statistics of one build's runs, filled block by block.

    ``items`` is the order of the item weights ``consume`` receives (the runs' items, sorted);
    ``draws[column]`` holds one statistic per resample once every block was consumed.
    """

    def __init__(self, runs: pd.DataFrame, kinds: dict[str, str], n_resamples: int) -> None:
        names, item_index = np.unique(runs["item_id"].to_numpy(), return_inverse=True)
        self.items: tuple[str, ...] = tuple(str(n) for n in names)
        self._quantiles: dict[str, _P95] = {}
        # Item columns whose weighted sums every statistic needs: runs, then each mean's sums.
        sums: list[np.ndarray] = [np.bincount(item_index, minlength=len(names)).astype(float)]
        self._means: list[str] = []
        for column, kind in kinds.items():
            values = runs[column].to_numpy(dtype=np.float64)
            if kind == "p95":
                order = np.argsort(values, kind="stable")
                window = min(values.size, WINDOW_MIN + int(np.ceil(WINDOW_SHARE * values.size)))
                self._quantiles[column] = _P95(values[order], item_index[order], window)
            else:
                self._means.append(column)
                sums.append(np.bincount(item_index, weights=values, minlength=len(names)))
        self._sums = np.stack(sums, axis=1)
        self.draws = {column: np.full(n_resamples, np.nan) for column in kinds}

    @property
    def bytes_per_resample(self) -> int:
        """Working memory per resample beyond the item weights (the p95 windows)."""
        return 24 * max((q.window for q in self._quantiles.values()), default=0)

    def consume(self, rows: slice, weights: np.ndarray) -> None:
        """Record the statistics of one block of resamples (item weights in ``items`` order)."""
        sums = weights @ self._sums
        for column, quantile in self._quantiles.items():
            self.draws[column][rows] = quantile.draws(weights, sums[:, 0])
        for k, column in enumerate(self._means, start=1):
            self.draws[column][rows] = sums[:, k] / sums[:, 0]
