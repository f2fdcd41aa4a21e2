"""Budgets: p95 latency and cost per task of the candidate, with clustered intervals.

Latency and cost are per run (repeated on each of the run's metric rows). Intervals resample
items, as for scores. The p95 is the inverted-CDF quantile (the smallest latency with at
least 95% of runs at or below it), computed for every resample at once from run weights.
A budgeted quantity with any run missing fails: a budget is never met by not measuring it.
"""

import numpy as np
import pandas as pd

from eval_pipeline.gate.bootstrap import resample_weights, seeded_rng
from eval_pipeline.gate.decision import BudgetDecision, Verdict
from eval_pipeline.gate.intervals import bounds
from eval_pipeline.gate.rules import GateConfig

P95 = 0.95


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _per_run(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    runs = frame.groupby(["item_id", "run_index"], sort=True)[column].first()
    return runs.reset_index()


def _p95(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Inverted-CDF p95 of sorted ``values`` for each row of integer run weights (B, R)."""
    cumulative = np.cumsum(weights, axis=1, dtype=np.int64)
    # Integer arithmetic: 100 * cumulative >= 95 * total, without rounding at the boundary.
    index = (100 * cumulative >= 95 * cumulative[:, -1:]).argmax(axis=1)
    return np.asarray(values[index])


def _draws(
    runs: pd.DataFrame, column: str, config: GateConfig, kind: str
) -> tuple[float, np.ndarray, int]:
    runs = runs.sort_values(column, kind="stable")
    items, item_index = np.unique(runs["item_id"].to_numpy(), return_inverse=True)
    values = runs[column].to_numpy(dtype=np.float64)
    weights = resample_weights(
        seeded_rng(config.seed, f"budget:{kind}"), len(items), config.n_resamples
    )
    if kind == "p95":
        run_weights = weights.astype(np.int32)[:, item_index]
        point = float(_p95(values, np.ones((1, values.size), dtype=np.int32))[0])
        return point, _p95(values, run_weights), len(items)
    sums = np.bincount(item_index, weights=values, minlength=len(items))
    counts = np.bincount(item_index, minlength=len(items)).astype(np.float64)
    return float(values.mean()), (weights @ sums) / (weights @ counts), len(items)


def _decide(
    name: str, value: float, low: float, high: float, limit: float, config: GateConfig
) -> tuple[Verdict, str]:
    if not (np.isfinite(low) and np.isfinite(high)):
        # Fewer than two items: no interval exists, and a point budget is all that can be said.
        where = "within" if value <= limit else "over"
        verdict: Verdict = "pass" if value <= limit else "fail"
        if config.tier.floor_mode == "interval":
            verdict = "inconclusive" if value <= limit else "fail"
        return verdict, f"{name} {value:.4g} {where} budget {limit:g} (no interval: too few items)"
    interval = f"[{low:.4g}, {high:.4g}]"
    if config.tier.floor_mode == "point":
        if value <= limit:
            return "pass", f"{name} {value:.4g} within budget {limit:g} (interval {interval})"
        return "fail", f"{name} {value:.4g} over budget {limit:g} (interval {interval})"
    if high <= limit:
        return "pass", f"{name} shown within budget {limit:g}: interval {interval}"
    if low > limit:
        return "fail", f"{name} shown over budget {limit:g}: interval {interval}"
    return "inconclusive", f"budget {limit:g} inside the {name} interval {interval}"


def _budget(
    name: str,
    column: str,
    kind: str,
    limit: float,
    candidate: pd.DataFrame,
    baseline: pd.DataFrame | None,
    config: GateConfig,
) -> BudgetDecision:
    runs = _per_run(candidate, column)
    missing = int(runs[column].isna().sum())
    base_value = None
    if baseline is not None:
        base_runs = _per_run(baseline, column).dropna()
        if len(base_runs):
            values = base_runs[column].to_numpy(dtype=np.float64)
            base_value = (
                float(np.quantile(values, P95, method="inverted_cdf"))
                if kind == "p95"
                else float(values.mean())
            )
    if runs.empty:
        return BudgetDecision(
            name, "fail", None, None, None, limit, base_value, 0, "no runs to measure", True
        )
    if missing:
        return BudgetDecision(
            name,
            "fail",
            None,
            None,
            None,
            limit,
            base_value,
            missing,
            f"{column} missing for {missing} of {len(runs)} runs",
            True,
        )
    point, draws, n_items = _draws(runs, column, config, kind)
    tail = config.alpha / 2
    low, high = bounds(np.array([point]), draws[:, None], np.array([n_items]), tail, tail)
    verdict, reason = _decide(name, point, float(low[0]), float(high[0]), limit, config)
    blocking = verdict == "fail" or (
        verdict == "inconclusive" and not config.tier.inconclusive_passes
    )
    return BudgetDecision(
        name,
        verdict,
        point,
        _finite(low[0]),
        _finite(high[0]),
        limit,
        base_value,
        0,
        reason,
        blocking,
    )


def evaluate_budgets(
    config: GateConfig, candidate: pd.DataFrame, baseline: pd.DataFrame | None
) -> tuple[BudgetDecision, ...]:
    """Decide each budget the suite sets (normalised frames in)."""
    decisions = []
    if config.budgets.p95_latency_s is not None:
        decisions.append(
            _budget(
                "p95_latency_s",
                "latency_s",
                "p95",
                config.budgets.p95_latency_s,
                candidate,
                baseline,
                config,
            )
        )
    if config.budgets.cost_per_task_usd is not None:
        decisions.append(
            _budget(
                "cost_per_task_usd",
                "cost_usd",
                "mean",
                config.budgets.cost_per_task_usd,
                candidate,
                baseline,
                config,
            )
        )
    return tuple(decisions)
