"""Missing scores: which expected candidate scores are not there, and why.

Expected: every item either build ran (an item the baseline ran and the candidate did not
is a run that silently did not happen) times every run index seen in the candidate (at
least ``runs_per_item`` when the suite says so) times every gated metric. A cell is missing
when its row says ``unscored`` or ``error``, when its value is null, or when it has no row. A
``not_applicable`` row is present and not missing: the scorer declared that the metric does
not apply to that run; those rows are counted per metric and per cause (their reason).
"""

import numpy as np
import pandas as pd

from eval_pipeline.gate.decision import MissingCount
from eval_pipeline.gate.frame import MISSING_NULL, NOT_APPLICABLE
from eval_pipeline.gate.rules import GateConfig

NO_REASON = "(no reason given)"


def count_missing(
    config: GateConfig, candidate: pd.DataFrame, baseline: pd.DataFrame | None
) -> dict[str, MissingCount]:
    """Missing candidate scores per gated metric (normalised frames in)."""
    items = set(candidate["item_id"])
    if baseline is not None:
        items |= set(baseline["item_id"])
    runs = candidate["run_index"].nunique()
    runs = max(runs, config.runs_per_item or 0)
    expected = len(items) * runs
    m = len(config.metric_ids)
    codes = candidate["metric_code"].to_numpy(dtype=np.int64)
    status = candidate["status"].to_numpy()
    present = np.bincount(codes, minlength=m)
    counts = {
        cause: np.bincount(codes[status == cause], minlength=m)
        for cause in ("unscored", "error", MISSING_NULL)
    }
    return {
        metric_id: MissingCount(
            expected=expected,
            unscored=int(counts["unscored"][j]),
            error=int(counts["error"][j]),
            null=int(counts[MISSING_NULL][j]),
            absent=max(expected - int(present[j]), 0),
        )
        for j, metric_id in enumerate(config.metric_ids)
    }


def not_applicable_causes(config: GateConfig, candidate: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per gated metric, the candidate's ``not_applicable`` rows counted by reason."""
    out: dict[str, dict[str, int]] = {metric_id: {} for metric_id in config.metric_ids}
    rows = candidate.loc[candidate["status"] == NOT_APPLICABLE, ["metric_id", "reason"]]
    if rows.empty:
        return out
    reasons = rows["reason"].where(rows["reason"].astype(str).str.strip() != "", NO_REASON)
    counts = rows.assign(reason=reasons).groupby(["metric_id", "reason"]).size()
    for (metric_id, reason), count in counts.items():
        out[str(metric_id)][str(reason)] = int(count)
    return out
