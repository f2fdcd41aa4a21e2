"""The bootstrap's memory is bounded, and its blocks do not change its answers.

Resamples are drawn and reduced in blocks (``gate/resampling.py``): 20,000 items x 2,000
resamples would need about 1 GB of draws, indices and weights at once; here it stays under 200
MB at the peak. Blocks of any size give the same draws for the same seed, so a gate run with tiny
blocks gives the same report, number for number, as one with the default blocks.
"""

import tracemalloc

import numpy as np
import pytest

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import Budgets, GateConfig, MetricRule, evaluate_gate, resampling
from eval_pipeline.gate.bootstrap import draw_cell
from eval_pipeline.gate.items import ItemStats
from eval_pipeline.gate.resampling import seeded_rng
from eval_pipeline.gate.simulation import SimDesign, SimMetric, simulate_pair

PEAK_LIMIT = 200 * 2**20


def _stats(n: int, seed: int) -> ItemStats:
    rng = np.random.default_rng(seed)
    sums = rng.integers(0, 4, size=(n, 2)).astype(np.float64)
    counts = np.full((n, 2), 3.0)
    return ItemStats(tuple(f"i{k}" for k in range(n)), sums, sums, counts)


def test_the_bootstrap_of_many_items_stays_within_its_memory_bound() -> None:
    cand, base = _stats(20_000, 1), _stats(20_000, 2)
    tracemalloc.start()
    try:
        draws = draw_cell(cand, base, seeded_rng(7, "overall"), 2_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_LIMIT, f"peak {peak / 2**20:.0f} MiB"
    assert draws.delta_draws is not None and np.isfinite(draws.delta_draws).all()


@pytest.mark.parametrize("block_bytes", [4096, 200_000])
def test_blocks_of_any_size_give_the_same_report(
    monkeypatch: pytest.MonkeyPatch, block_bytes: int
) -> None:
    metrics = (
        SimMetric("task_completion", "binary", 0.8),
        SimMetric("faithfulness", "graded", 0.7, not_applicable_runs=0.1),
    )
    design = SimDesign(metrics, n_items=60, slices={"intent": 3})
    cand, base = simulate_pair(design, 5, delta=-0.02)
    config = GateConfig(
        metrics=tuple(MetricRule(m.metric_id, 0.5, 0.05) for m in metrics),
        budgets=Budgets(p95_latency_s=10.0, cost_per_task_usd=0.1),
        slices=("intent",),
        tier=gate_tier("medium"),
        n_resamples=1000,
    )
    default = evaluate_gate(config, cand, base).to_json()
    monkeypatch.setattr(resampling, "BLOCK_BYTES", block_bytes)
    assert evaluate_gate(config, cand, base).to_json() == default
