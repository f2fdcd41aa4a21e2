"""Flaky items: items whose runs within one build disagree beyond chance.

"Chance" is the run-to-run noise of the build's other items: an item is flaky when the spread
of its runs is larger than the pooled within-item variance of the rest explains, by a
one-sided chi-square test, (r - 1) s^2 / s_rest^2 ~ chi2(r - 1), Bonferroni-corrected over the
items (a build whose every item is as noisy flags none: that noise is the build's, and its
interval already says so). Where the other items never disagree, any disagreement is flaky.

Flaky items are evidence, never dropped: they stay in every mean and interval. What is
reported is their cost: ``share_of_width``, how much narrower the interval on the build's mean
would be if the item's runs agreed. The mean over items has variance sum_j (y_j - M)^2 / n^2
(clustered by item); the item's run noise adds s^2 / r to its term, so removing it leaves
1 - f of the variance with f = (s^2 / r) / sum_j (y_j - M)^2, and the width 1 - sqrt(1 - f).
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

ALPHA = 0.05
"""Family-wise false-flag rate over a build's items."""


@dataclass(frozen=True)
class FlakyItem:
    """One item of one metric whose runs disagree beyond chance."""

    item_id: str
    metric_id: str
    values: tuple[float, ...]
    p_value: float
    share_of_width: float

    def to_json(self) -> dict[str, Any]:
        """The item as JSON."""
        return {
            "item_id": self.item_id,
            "metric_id": self.metric_id,
            "values": list(self.values),
            "p_value": self.p_value,
            "share_of_width": self.share_of_width,
        }


def flaky_items(frame: pd.DataFrame, metric_id: str, alpha: float = ALPHA) -> list[FlakyItem]:
    """The flaky items of ``metric_id`` in a build's scores, largest share of width first."""
    rows = frame[(frame["metric_id"] == metric_id) & (frame["status"] == "scored")]
    rows = rows[rows["value"].notna()]
    if rows.empty:
        return []
    grouped = rows.groupby("item_id", sort=True)["value"]
    runs = grouped.count().to_numpy(dtype=np.float64)
    means = grouped.mean().to_numpy(dtype=np.float64)
    variances = grouped.var(ddof=1).fillna(0.0).to_numpy(dtype=np.float64)
    items = grouped.mean().index.astype(str)
    df = np.maximum(runs - 1, 0)
    within_ss = variances * df
    rest_ss, rest_df = within_ss.sum() - within_ss, df.sum() - df
    with np.errstate(divide="ignore", invalid="ignore"):
        rest_var = np.where(rest_df > 0, rest_ss / rest_df, 0.0)
        statistic = np.where(rest_var > 0, within_ss / rest_var, np.inf)
    p = np.where(variances > 0, stats.chi2.sf(statistic, np.maximum(df, 1)), 1.0)
    flagged = (variances > 0) & (df > 0) & (p * len(items) < alpha)
    spread = float(((means - means.mean()) ** 2).sum())
    out = []
    values = {str(k): tuple(float(v) for v in g) for k, g in grouped}
    for k in np.flatnonzero(flagged):
        share = variances[k] / runs[k] / spread if spread > 0 else 1.0
        out.append(
            FlakyItem(
                items[k],
                metric_id,
                values[items[k]],
                float(p[k]),
                float(1 - np.sqrt(1 - min(share, 1.0))),
            )
        )
    return sorted(out, key=lambda f: (-f.share_of_width, f.item_id))
