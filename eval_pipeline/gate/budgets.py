"""Budgets: p95 latency and cost per task of the candidate, with clustered intervals.

Latency and cost are per run (repeated on each of the run's metric rows). Intervals resample
items with the same draws as the scores (``run_stats.BudgetDraws`` watches the overall
bootstrap's blocks). The p95 is the inverted-CDF quantile (the smallest latency with at least
95% of runs at or below it). A budgeted quantity with any run missing fails: a budget is never
met by not measuring it.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from eval_pipeline.gate.decision import BudgetDecision, Verdict
from eval_pipeline.gate.intervals import bounds
from eval_pipeline.gate.rules import GateConfig
from eval_pipeline.gate.run_stats import BudgetDraws, p95

MEASURED = ("latency_s", "cost_usd")


@dataclass(frozen=True)
class _Budget:
    name: str
    column: str
    kind: str
    limit: float


def _per_run(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (item, run) with its latency and cost, in item and run order.

    A run's measurements repeat on each of its metric rows; the first present one counts.
    """
    items, names = pd.factorize(frame["item_id"], sort=True)
    runs = frame["run_index"].to_numpy(dtype=np.int64)
    span = int(runs.max(initial=0)) + 1
    keys, index = np.unique(items.astype(np.int64) * span + runs, return_inverse=True)
    out: dict[str, np.ndarray] = {
        "item_id": np.asarray(names, dtype=object)[keys // span],
        "run_index": keys % span,
    }
    for column in MEASURED:
        values = frame[column].to_numpy(dtype=np.float64)
        present = np.flatnonzero(~np.isnan(values))
        runs_with, position = np.unique(index[present], return_index=True)
        first = np.full(keys.size, np.nan)
        first[runs_with] = values[present[position]]
        out[column] = first
    return pd.DataFrame(out)


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _statistic(values: np.ndarray, kind: str) -> float:
    if kind == "p95":
        ordered = np.sort(values)
        return float(p95(ordered, np.ones((1, ordered.size), dtype=np.int64))[0])
    return float(values.mean())


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


def _unmeasured(budget: _Budget, runs: pd.DataFrame, base_value: float | None) -> BudgetDecision:
    missing = int(runs[budget.column].isna().sum())
    reason = (
        "no runs to measure"
        if runs.empty
        else f"{budget.column} missing for {missing} of {len(runs)} runs"
    )
    return BudgetDecision(
        budget.name, "fail", None, None, None, budget.limit, base_value, missing, reason, True
    )


@dataclass(frozen=True)
class BudgetRuns:
    """The budgets a suite sets, the candidate's runs, and their resampled statistics.

    ``draws`` watches the overall bootstrap (``draw_cell(observer=...)``), so budgets are
    resampled with the draws that weigh the scores; None when no budget can be measured.
    """

    budgets: tuple[_Budget, ...]
    runs: pd.DataFrame
    draws: BudgetDraws | None


def budget_runs(config: GateConfig, candidate: pd.DataFrame) -> BudgetRuns | None:
    """The candidate's budgeted runs (normalised frame in); None when the suite sets none."""
    budgets = tuple(
        _Budget(name, column, kind, float(limit))
        for name, column, kind, limit in (
            ("p95_latency_s", "latency_s", "p95", config.budgets.p95_latency_s),
            ("cost_per_task_usd", "cost_usd", "mean", config.budgets.cost_per_task_usd),
        )
        if limit is not None
    )
    if not budgets:
        return None
    runs = _per_run(candidate)
    kinds = {b.column: b.kind for b in budgets if len(runs) and not runs[b.column].isna().any()}
    draws = BudgetDraws(runs, kinds, config.n_resamples) if kinds else None
    return BudgetRuns(budgets, runs, draws)


def evaluate_budgets(
    config: GateConfig, measured: BudgetRuns | None, baseline: pd.DataFrame | None
) -> tuple[BudgetDecision, ...]:
    """Decide each budget the suite sets, once ``measured.draws`` has seen every resample."""
    if measured is None:
        return ()
    runs = measured.runs
    base_runs = _per_run(baseline) if baseline is not None else None
    tail = config.alpha / 2
    decisions = []
    for budget in measured.budgets:
        base_measured = (
            base_runs[budget.column].dropna().to_numpy(dtype=np.float64)
            if base_runs is not None
            else np.empty(0)
        )
        base_value = _statistic(base_measured, budget.kind) if base_measured.size else None
        if measured.draws is None or budget.column not in measured.draws.draws:
            decisions.append(_unmeasured(budget, runs, base_value))
            continue
        point = _statistic(runs[budget.column].to_numpy(dtype=np.float64), budget.kind)
        column = measured.draws.draws[budget.column][:, None]
        n_items = np.array([len(measured.draws.items)])
        low, high = bounds(np.array([point]), column, n_items, tail, tail)
        verdict, reason = _decide(
            budget.name, point, float(low[0]), float(high[0]), budget.limit, config
        )
        blocking = verdict == "fail" or (
            verdict == "inconclusive" and not config.tier.inconclusive_passes
        )
        decisions.append(
            BudgetDecision(
                budget.name,
                verdict,
                point,
                _finite(low[0]),
                _finite(high[0]),
                budget.limit,
                base_value,
                0,
                reason,
                blocking,
            )
        )
    return tuple(decisions)
