"""Evidence: the worst items of each metric, with the trace ids to open.

Items whose candidate scores are missing come first (they are why a metric fails on missing
scores), then items by their paired drop (candidate item mean - baseline item mean), then by
the candidate item mean when there is no baseline for the item. Trace ids are those of the
item's lowest-scored candidate runs (missing runs first). Runs the metric does not apply to
(``not_applicable``) are no evidence of anything and are left out.
"""

import math

import numpy as np
import pandas as pd

from eval_pipeline.gate.decision import EvidenceItem
from eval_pipeline.gate.frame import NOT_APPLICABLE

TRACES_PER_ITEM = 3


def _means(frame: pd.DataFrame, name: str) -> "pd.Series[float]":
    scored = frame[frame["status"] == "scored"]
    return scored.groupby(["metric_id", "item_id"])["value"].mean().rename(name)


def _optional(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def worst_items(
    candidate: pd.DataFrame,
    baseline: pd.DataFrame | None,
    metric_ids: tuple[str, ...],
    slices: tuple[str, ...],
    k: int,
) -> dict[str, tuple[EvidenceItem, ...]]:
    """The ``k`` worst items per metric (normalised frames in, evidence out)."""
    if k <= 0:
        return {metric_id: () for metric_id in metric_ids}
    labelled = candidate
    candidate = candidate[candidate["status"] != NOT_APPLICABLE]
    table = candidate[["metric_id", "item_id"]].drop_duplicates()
    table = table.join(_means(candidate, "cand"), on=["metric_id", "item_id"])
    if baseline is not None:
        table = table.join(_means(baseline, "base"), on=["metric_id", "item_id"])
    else:
        table["base"] = np.nan
    table["delta"] = table["cand"] - table["base"]
    table["scored"] = table["cand"].notna()
    table["rank_delta"] = table["delta"].fillna(np.inf)
    table["rank_cand"] = table["cand"].fillna(-np.inf)
    chosen = (
        table.sort_values(["metric_id", "scored", "rank_delta", "rank_cand", "item_id"])
        .groupby("metric_id", sort=False)
        .head(k)
    )
    rows = candidate.merge(chosen[["metric_id", "item_id"]], on=["metric_id", "item_id"])
    rows = rows.sort_values("value", na_position="first", kind="stable")
    traces = rows.dropna(subset=["trace_id"]).groupby(["metric_id", "item_id"])["trace_id"]
    trace_ids = {key: tuple(map(str, ids.head(TRACES_PER_ITEM))) for key, ids in traces}
    present = [s for s in slices if s in labelled.columns]
    labels = labelled.drop_duplicates("item_id").set_index("item_id")[present]
    out: dict[str, tuple[EvidenceItem, ...]] = {metric_id: () for metric_id in metric_ids}
    for metric_id, group in chosen.groupby("metric_id", sort=False):
        out[str(metric_id)] = tuple(
            EvidenceItem(
                item_id=str(row.item_id),
                candidate_mean=_optional(row.cand),
                baseline_mean=_optional(row.base),
                delta=_optional(row.delta),
                trace_ids=trace_ids.get((metric_id, row.item_id), ()),
                slices={s: str(labels.at[row.item_id, s]) for s in present},
            )
            for row in group.itertuples()
        )
    return out
