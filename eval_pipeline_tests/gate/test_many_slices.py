"""A suite with thousands of slice values is gated in time linear in them (issue 30).

Before the fix, ``items.item_stats`` built dense (slice values x items x metrics) arrays: with
one item per slice value that is quadratic, and a 10,000-value slice took seven minutes (and
gigabytes). Both runs are timed in the same test (process CPU time), so the bound is relative:
twenty times the slices may cost at most sixty times the time (linear is twenty; the dense
arrays made it hundreds).
"""

import time

import numpy as np
import pandas as pd

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import GateConfig, MetricRule, evaluate_gate
from eval_pipeline.gate.items import item_stats

METRICS = ("m1", "m2")


def _scores(n_values: int, seed: int, runs: int = 2) -> pd.DataFrame:
    """One item per slice value, ``runs`` runs each, two metrics."""
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_values), runs * len(METRICS))
    runs_of = np.tile(np.repeat(np.arange(runs), len(METRICS)), n_values)
    return pd.DataFrame(
        {
            "item_id": [f"item{i:06d}" for i in items],
            "run_index": runs_of,
            "metric_id": np.tile(METRICS, n_values * runs),
            "value": rng.random(len(items)),
            "trace_id": [f"t{i}-{r}" for i, r in zip(items, runs_of, strict=True)],
            "intent": [f"v{i}" for i in items],
        }
    )


def _gate_seconds(n_values: int) -> float:
    config = GateConfig(
        metrics=tuple(MetricRule(m, 0.5, 0.05) for m in METRICS),
        slices=("intent",),
        tier=gate_tier("medium"),
        n_resamples=200,
    )
    candidate, baseline = _scores(n_values, 1), _scores(n_values, 2)
    start = time.process_time()
    report = evaluate_gate(config, candidate, baseline)
    elapsed = time.process_time() - start
    assert len(report.metrics[0].slices) == n_values
    return elapsed


def _stats_seconds(frame: pd.DataFrame) -> float:
    from eval_pipeline.gate.frame import normalise_scores

    normalised = normalise_scores(frame, metric_ids=METRICS, slices=("intent",), source="s")
    start = time.process_time()
    cells = item_stats(normalised, METRICS, by="intent")
    elapsed = time.process_time() - start
    assert len(cells) == frame["intent"].nunique()
    assert all(len(stats.items) == 1 for stats in cells.values())
    return elapsed


def test_item_stats_of_many_slice_values_is_linear() -> None:
    _stats_seconds(_scores(100, 0))  # warm up
    small = min(_stats_seconds(_scores(200, 0)) for _ in range(3))
    large = _stats_seconds(_scores(4_000, 0))
    assert large < 60 * max(small, 1e-3), (small, large)


def test_a_gate_over_many_slice_values_costs_about_linear_time() -> None:
    _gate_seconds(50)  # warm up
    small = _gate_seconds(150)
    large = _gate_seconds(3_000)
    assert large < 60 * small, (small, large)
