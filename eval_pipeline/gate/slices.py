"""Per-slice decisions, with multiple-comparison control across slice cells.

Every value of every slice column is a cell (``intent=refund``). The K cells share
``slice_alpha_share`` of the false-alarm budget alpha/2 (Bonferroni: each bound at
``alpha/2 * share / K``), so checking more slices never raises the chance of failing an A/A
comparison. A cell is decided by the same rule as the overall delta; the floor is not applied
per slice (a small slice's mean is too noisy to hold an absolute floor to).
"""

import numpy as np
import pandas as pd

from eval_pipeline.gate.bootstrap import CellDraws, draw_cell
from eval_pipeline.gate.decision import SliceDecision, Verdict
from eval_pipeline.gate.intervals import MIN_TAIL_DRAWS, studentized_bounds
from eval_pipeline.gate.items import ItemStats, item_stats
from eval_pipeline.gate.lattice import widen
from eval_pipeline.gate.resampling import seeded_rng
from eval_pipeline.gate.rules import GateConfig
from eval_pipeline.gate.verdict import comparison_verdict


def entry(array: np.ndarray | None, j: int) -> float | None:
    """Column ``j`` of ``array`` as a float, None when absent or not finite."""
    if array is None or not np.isfinite(array[j]):
        return None
    return float(array[j])


def runs_behind(cand: ItemStats, base: ItemStats | None) -> np.ndarray:
    """Runs behind a delta per metric (the smaller build's), for the lattice correction."""
    runs = np.asarray(cand.counts.sum(axis=0))
    return runs if base is None else np.minimum(runs, base.counts.sum(axis=0))


def delta_bounds(
    draws: CellDraws, lower_tail: float, upper_tail: float
) -> tuple[np.ndarray, np.ndarray] | tuple[None, None]:
    """Studentized bounds on delta (None, None without a baseline)."""
    if (
        draws.delta_point is None
        or draws.delta_se is None
        or draws.delta_draws is None
        or draws.delta_se_draws is None
    ):
        return None, None
    n_eff = np.minimum(draws.n_cand, draws.n_base)
    return studentized_bounds(
        draws.delta_point,
        draws.delta_se,
        draws.delta_draws,
        draws.delta_se_draws,
        n_eff,
        lower_tail,
        upper_tail,
    )


def slice_decisions(
    config: GateConfig, cand: pd.DataFrame, base: pd.DataFrame | None, steps: np.ndarray
) -> dict[str, list[SliceDecision]]:
    """Per metric, one decision per slice value, at the family-corrected level."""
    out: dict[str, list[SliceDecision]] = {m: [] for m in config.metric_ids}
    cells: list[tuple[str, str, ItemStats, ItemStats | None]] = []
    for name in config.slices:
        cand_cells = item_stats(cand, config.metric_ids, by=name)
        base_cells = item_stats(base, config.metric_ids, by=name) if base is not None else {}
        cells.extend((name, v, s, base_cells.get(v)) for v, s in cand_cells.items() if v)
    if not cells:
        return out
    tail = config.alpha / 2 * config.slice_alpha_share / len(cells)
    # A tail holding fewer than MIN_TAIL_DRAWS resamples is bounded by the expanded normal
    # quantile, never by the resamples: then drawing them would be work thrown away.
    resamples = config.n_resamples if tail * config.n_resamples >= MIN_TAIL_DRAWS else 0
    for name, value, cand_stats, base_stats in cells:
        rng = seeded_rng(config.seed, f"slice:{name}={value}")
        draws = draw_cell(cand_stats, base_stats, rng, resamples, cand_interval=False)
        low, high = delta_bounds(draws, tail, tail)
        if low is not None and high is not None:
            assert draws.delta_se is not None
            low, high = widen(low, high, steps, runs_behind(cand_stats, base_stats), draws.delta_se)
            low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
        for j, rule in enumerate(config.metrics):
            if draws.n_cand[j] == 0:
                continue
            verdict: Verdict
            if low is None or high is None or draws.n_base[j] == 0:
                verdict, reason = "inconclusive", "no baseline for this slice"
                n_items = int(draws.n_cand[j])
            else:
                n_items = int(min(draws.n_cand[j], draws.n_base[j]))
                verdict, reason = comparison_verdict(
                    entry(low, j), entry(high, j), rule.margin, n_items, config.min_items
                )
            out[rule.metric_id].append(
                SliceDecision(
                    name,
                    value,
                    verdict,
                    entry(draws.cand_point, j),
                    entry(draws.base_point, j),
                    entry(draws.delta_point, j),
                    entry(low, j),
                    entry(high, j),
                    n_items,
                    tail,
                    reason,
                )
            )
    return out
