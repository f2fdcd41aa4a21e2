"""Lower-is-better metrics at the gate: gated on their complement, 1 - value.

The gate (``eval_pipeline.gate``) reads every metric as higher-is-better: a floor is a
minimum, a regression a drop. A metric whose scorer declares ``lower_is_better`` (for example
``session.repeated_user_requests``, the share of user turns repeating an earlier request) is
handed to it as its complement: each scored value v becomes 1 - v (the share of later user
turns that repeat nothing), and the suite's ``threshold`` for it is a ceiling on the mean,
given to the gate as the floor 1 - threshold; ``max_regression`` is the largest rise
tolerated. Values of such metrics are in [0, 1] (the scorer's declared range). The gate
report shows the complement under the metric's id.
"""

from collections.abc import Iterable

import pandas as pd

from eval_pipeline.scoring.direction import lower_is_better

__all__ = ["lower_ids", "lower_is_better", "oriented"]


def lower_ids(metric_ids: Iterable[str]) -> frozenset[str]:
    """The lower-is-better ids among ``metric_ids``."""
    return frozenset(m for m in metric_ids if lower_is_better(m))


def oriented(frame: pd.DataFrame, lower: frozenset[str]) -> pd.DataFrame:
    """``frame`` with every value of a ``lower`` metric replaced by 1 - value."""
    if not lower or frame.empty or "metric_id" not in frame.columns:
        return frame
    out = frame.copy()
    rows = out["metric_id"].isin(lower) & out["value"].notna()
    out.loc[rows, "value"] = 1.0 - out.loc[rows, "value"].astype(float)
    return out
