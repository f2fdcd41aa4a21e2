"""Evidence: the worst items of each metric, with the trace ids to open.

Items whose candidate scores are missing come first (they are why a metric fails on missing
scores), then items by their paired drop (candidate item mean - baseline item mean), then by
the candidate item mean when there is no baseline for the item, then by item id. Trace ids are
those of the item's lowest-scored candidate runs (missing runs first). Runs the metric does
not apply to (``not_applicable``) are no evidence of anything and are left out.

Computed on integer codes (metric x item cells), so the cost stays linear in the rows.
"""

import numpy as np
import pandas as pd

from eval_pipeline.gate.decision import EvidenceItem
from eval_pipeline.gate.frame import NOT_APPLICABLE

TRACES_PER_ITEM = 3


def _cell_means(frame: pd.DataFrame, items: pd.Index, m: int) -> np.ndarray:
    """Mean of the scored values per metric x item cell, shape (m, items); NaN if none."""
    scored = frame[frame["status"] == "scored"]
    cell = scored["metric_code"].to_numpy() * len(items) + items.get_indexer(scored["item_id"])
    size = m * len(items)
    sums = np.bincount(cell, weights=scored["value"].to_numpy(), minlength=size)
    counts = np.bincount(cell, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sums / counts).reshape(m, len(items))


def _optional(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def worst_items(
    candidate: pd.DataFrame,
    baseline: pd.DataFrame | None,
    metric_ids: tuple[str, ...],
    slices: tuple[str, ...],
    k: int,
) -> dict[str, tuple[EvidenceItem, ...]]:
    """The ``k`` worst items per metric (normalised frames in, evidence out)."""
    out: dict[str, tuple[EvidenceItem, ...]] = {metric_id: () for metric_id in metric_ids}
    if k <= 0:
        return out
    rows = candidate[candidate["status"] != NOT_APPLICABLE]
    names = set(rows["item_id"]) | (set(baseline["item_id"]) if baseline is not None else set())
    items = pd.Index(sorted(names), dtype=object)
    m, n = len(metric_ids), len(items)
    cand = _cell_means(rows, items, m)
    base = _cell_means(baseline, items, m) if baseline is not None else np.full((m, n), np.nan)
    cell = rows["metric_code"].to_numpy() * n + items.get_indexer(rows["item_id"])
    present = np.bincount(cell, minlength=m * n).reshape(m, n) > 0
    # Each cell's runs, lowest value first (missing first), for their trace ids.
    values = rows["value"].to_numpy()
    order = np.lexsort((np.where(np.isnan(values), -np.inf, values), cell))
    sorted_cells, traces = cell[order], rows["trace_id"].to_numpy()[order]
    first = ~candidate["item_id"].duplicated().to_numpy()
    present_slices = [s for s in slices if s in candidate.columns]
    labels = {
        s: dict(
            zip(candidate["item_id"].to_numpy()[first], candidate[s].to_numpy()[first], strict=True)
        )
        for s in present_slices
    }
    for j, metric_id in enumerate(metric_ids):
        where = np.flatnonzero(present[j])
        if where.size == 0:
            continue
        c, b = cand[j, where], base[j, where]
        delta = c - b
        rank = np.lexsort(
            (where, np.where(np.isnan(c), -np.inf, c), np.where(np.isnan(delta), np.inf, delta),
             ~np.isnan(c))
        )  # fmt: skip
        chosen = []
        for i in where[rank[:k]]:
            lo, hi = np.searchsorted(sorted_cells, [j * n + i, j * n + i + 1])
            ids = [str(t) for t in traces[lo:hi] if not pd.isna(t)][:TRACES_PER_ITEM]
            item = str(items[i])
            chosen.append(
                EvidenceItem(
                    item_id=item,
                    candidate_mean=_optional(cand[j, i]),
                    baseline_mean=_optional(base[j, i]),
                    delta=_optional(cand[j, i] - base[j, i]),
                    trace_ids=tuple(ids),
                    slices={s: str(labels[s][item]) for s in present_slices},
                )
            )
        out[metric_id] = tuple(chosen)
    return out
