"""Missing scores: which expected candidate scores are not there, and why.

Expected: every item either build ran (an item the baseline ran and the candidate did not
is a run that silently did not happen) times every run index seen in the candidate (at
least ``runs_per_item`` when the suite says so) times every gated metric. A cell is missing
when its row says ``unscored`` or ``error``, when its value is null, or when it has no row. A
``not_applicable`` row is present and not missing: the scorer declared that the metric does
not apply to that run; those rows are counted per metric and per cause (their reason).
"""

import pandas as pd

from eval_pipeline.gate.decision import MissingCount
from eval_pipeline.gate.frame import NOT_APPLICABLE
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
    by_status = candidate.groupby(["metric_id", "status"]).size()
    out = {}
    for metric_id in config.metric_ids:
        counts = by_status.get(metric_id, pd.Series(dtype="int64"))
        present = int(counts.sum())
        out[metric_id] = MissingCount(
            expected=expected,
            unscored=int(counts.get("unscored", 0)),
            error=int(counts.get("error", 0)),
            null=int(counts.get("null", 0)),
            absent=max(expected - present, 0),
        )
    return out


def not_applicable_causes(config: GateConfig, candidate: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per gated metric, the candidate's ``not_applicable`` rows counted by reason."""
    rows = candidate.loc[candidate["status"] == NOT_APPLICABLE, ["metric_id", "reason"]]
    reasons = rows["reason"].where(rows["reason"].astype(str).str.strip() != "", NO_REASON)
    counts = rows.assign(reason=reasons).groupby(["metric_id", "reason"]).size()
    out: dict[str, dict[str, int]] = {metric_id: {} for metric_id in config.metric_ids}
    for (metric_id, reason), count in counts.items():
        out[str(metric_id)][str(reason)] = int(count)
    return out
