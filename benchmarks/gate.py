"""Benchmark: a full release gate against the reference's pure-Python bootstrap.

Workload (issue 8): 15 metrics x 10 slice values x 150 items x 3 runs, 10,000 resamples.
The gate under test is :func:`eval_pipeline.gate.evaluate_gate` end to end (validation,
clustered paired bootstrap of every metric overall and per slice, power, evidence, budgets).

The reference is the reference architecture's ``bootstrap_delta_low`` re-implemented here
verbatim in algorithm (``random.choice`` per value, ``statistics.fmean``, sort, index), run on
the same values: per metric once overall and once per slice value. It takes minutes at full
size, so it runs on ``reference_metrics`` metrics with ``reference_resamples`` resamples and
is extrapolated linearly (its cost is linear in both); the output says so.
"""

import random
import statistics
import time
from typing import Any

import pandas as pd

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import GateConfig, MetricRule, evaluate_gate
from eval_pipeline.gate.rules import Budgets
from eval_pipeline.gate.simulation import SimDesign, SimMetric, simulate_pair


def reference_bootstrap_delta_low(
    candidate: list[float],
    baseline: list[float],
    n: int = 2000,
    alpha: float = 0.05,
    seed: int = 7,
) -> float:
    """The reference's algorithm: lower bound of mean(candidate) - mean(baseline)."""
    rng = random.Random(seed)
    deltas = []
    for _ in range(n):
        c = [rng.choice(candidate) for _ in candidate]
        b = [rng.choice(baseline) for _ in baseline]
        deltas.append(statistics.fmean(c) - statistics.fmean(b))
    deltas.sort()
    return deltas[int(alpha / 2 * n)]


def _reference_gate(
    cand: pd.DataFrame, base: pd.DataFrame, metric_ids: list[str], n_resamples: int
) -> int:
    """The reference's bootstrap for each metric overall and per slice value; returns calls."""
    calls = 0
    for metric_id in metric_ids:
        c = cand[cand["metric_id"] == metric_id]
        b = base[base["metric_id"] == metric_id]
        reference_bootstrap_delta_low(list(c["value"]), list(b["value"]), n=n_resamples)
        calls += 1
        for value in sorted(c["intent"].unique()):
            reference_bootstrap_delta_low(
                list(c.loc[c["intent"] == value, "value"]),
                list(b.loc[b["intent"] == value, "value"]),
                n=n_resamples,
            )
            calls += 1
    return calls


def run(
    n_metrics: int = 15,
    n_slices: int = 10,
    n_items: int = 150,
    runs_per_item: int = 3,
    n_resamples: int = 10_000,
    reference_metrics: int = 1,
    reference_resamples: int = 1_000,
    repeats: int = 5,
) -> dict[str, Any]:
    """Time the gate and the reference on the same data; JSON-safe result with ``speedup``."""
    metrics = tuple(
        SimMetric(f"metric_{i:02d}", "binary" if i % 2 else "graded", mean=0.85)
        for i in range(n_metrics)
    )
    design = SimDesign(
        metrics, n_items=n_items, runs_per_item=runs_per_item, slices={"intent": n_slices}
    )
    cand, base = simulate_pair(design, seed=42, delta=-0.01)
    config = GateConfig(
        metrics=tuple(MetricRule(m.metric_id, 0.7, 0.05) for m in metrics),
        budgets=Budgets(p95_latency_s=12.0, cost_per_task_usd=0.08),
        slices=("intent",),
        tier=gate_tier("medium"),
        n_resamples=n_resamples,
    )
    evaluate_gate(config, cand, base)  # warm caches and imports

    def time_gate() -> list[float]:
        timings = []
        for _ in range(repeats):
            start = time.perf_counter()
            evaluate_gate(config, cand, base)
            timings.append(time.perf_counter() - start)
        return timings

    # The gate is timed before and after the reference, so a burst of load on a shared
    # machine during one of them does not decide the ratio; the best run counts.
    before = time_gate()
    start = time.perf_counter()
    ids = [m.metric_id for m in metrics[:reference_metrics]]
    calls = _reference_gate(cand, base, ids, reference_resamples)
    reference_measured_s = time.perf_counter() - start
    timings = before + time_gate()
    gate_s, gate_median_s = min(timings), statistics.median(timings)
    report = evaluate_gate(config, cand, base)
    scale = (n_metrics / reference_metrics) * (n_resamples / reference_resamples)
    reference_s = reference_measured_s * scale
    extrapolated = scale != 1.0
    return {
        "workload": f"{n_metrics} metrics x {n_slices} slices x {n_items} items x "
        f"{runs_per_item} runs, {n_resamples} resamples",
        "gate_seconds": round(gate_s, 4),
        "gate_seconds_median": round(gate_median_s, 4),
        "gate_verdict": report.verdict,
        "reference_seconds": round(reference_s, 2),
        "reference_measured_seconds": round(reference_measured_s, 3),
        "reference_bootstrap_calls_measured": calls,
        "reference_extrapolated": extrapolated,
        "reference_note": (
            f"reference run on {reference_metrics} of {n_metrics} metrics with "
            f"{reference_resamples} resamples, scaled linearly by {scale:g}"
            if extrapolated
            else "reference run at full size"
        ),
        "speedup": round(reference_s / gate_s, 1),
        "speedup_vs_median_gate": round(reference_s / gate_median_s, 1),
    }
