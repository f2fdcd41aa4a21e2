"""Simulation: the gate's error rates on clustered stochastic data with a known truth.

docs/DESIGN.md section 8: at a true regression equal to the margin the gate passes at most alpha/2
of the time; A/A comparisons fail at most alpha/2 of the time, also with 10 slices checked;
a regression of twice the margin is caught at least 80% of the time wherever the reported
power says the suite can detect it. Data: item effects, 3 runs per item, a graded and a
binary metric, fixed seeds; the same rates hold with ``not_applicable`` rows in the mix (a
fifth of the items and a tenth of the other runs, as a hand-off or action-claim metric has).
Rates are checked with a one-sided binomial tolerance (the
observed count must not be significantly above the allowed rate at the 1% level, or below
the promised power), so a gate whose control were off by a factor of two would fail here.
"""

from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import GateConfig, GateReport, MetricRule, evaluate_gate
from eval_pipeline.gate.simulation import SimDesign, SimMetric, simulate_pair

ALPHA = 0.05
METRICS = (
    SimMetric("answer_quality", "graded", mean=0.7, item_spread=0.2, run_noise=0.15),
    SimMetric("task_completion", "binary", mean=0.85, item_spread=0.1),
)
MIXED = tuple(replace(m, not_applicable_items=0.2, not_applicable_runs=0.1) for m in METRICS)


def _config(margin: float, slices: tuple[str, ...] = (), **kw: object) -> GateConfig:
    rules = tuple(MetricRule(m.metric_id, threshold=0.0, max_regression=margin) for m in METRICS)
    base = GateConfig(
        metrics=rules,
        slices=slices,
        alpha=ALPHA,
        n_resamples=1000,
        evidence_items=0,
        tier=gate_tier("medium"),
    )
    return replace(base, **kw) if kw else base


def _gates(
    design: SimDesign, config: GateConfig, delta: float, n: int, seed0: int
) -> list[GateReport]:
    return [evaluate_gate(config, *simulate_pair(design, seed0 + s, delta=delta)) for s in range(n)]


def _not_above(count: int, trials: int, rate: float) -> bool:
    """The count is not significantly above ``rate`` (one-sided binomial, 1% level)."""
    return float(stats.binom.sf(count - 1, trials, rate)) >= 0.01


def _not_below(count: int, trials: int, rate: float) -> bool:
    """The count is not significantly below ``rate`` (one-sided binomial, 1% level)."""
    return float(stats.binom.cdf(count, trials, rate)) >= 0.01


def test_a_regression_exactly_at_the_margin_passes_at_most_half_alpha() -> None:
    margin = 0.05
    reports = _gates(SimDesign(METRICS, n_items=60), _config(margin), -margin, 160, 1_000)
    decisions = [m for r in reports for m in r.metrics]
    passes = sum(m.verdict == "pass" for m in decisions)
    assert _not_above(passes, len(decisions), ALPHA / 2), (passes, len(decisions))
    # The truth sits on the boundary: most gates cannot tell, none may pass by default.
    assert sum(m.verdict == "inconclusive" for m in decisions) > 0.8 * len(decisions)


def test_a_over_a_fails_at_most_half_alpha_even_across_ten_slices() -> None:
    # Margin 0 is the worst case for false alarms: any shown drop fails.
    design = SimDesign(METRICS, n_items=100, slices={"intent": 10})
    reports = _gates(design, _config(0.0, slices=("intent",)), 0.0, 80, 2_000)
    decisions = [m for r in reports for m in r.metrics]
    assert all(len(m.slices) == 10 for m in decisions)
    fails = sum(m.verdict == "fail" for m in decisions)
    assert _not_above(fails, len(decisions), ALPHA / 2), (fails, len(decisions))


def test_with_not_applicable_rows_a_over_a_and_the_margin_hold_their_rates() -> None:
    design = SimDesign(MIXED, n_items=80, slices={"intent": 5})
    config = _config(0.05, slices=("intent",))
    at_margin = [m for r in _gates(design, config, -0.05, 80, 4_000) for m in r.metrics]
    assert all(m.not_applicable and not m.missing.total for m in at_margin)
    passes = sum(m.verdict == "pass" for m in at_margin)
    assert _not_above(passes, len(at_margin), ALPHA / 2), (passes, len(at_margin))
    same = [m for r in _gates(design, _config(0.0), 0.0, 80, 5_000) for m in r.metrics]
    fails = sum(m.verdict == "fail" for m in same)
    assert _not_above(fails, len(same), ALPHA / 2), (fails, len(same))


def test_twice_the_margin_is_caught_wherever_power_says_it_is_detectable() -> None:
    # Sized so that the binary metric is just detectable (reported power close to 80%).
    margin = 0.08
    design = SimDesign(METRICS, n_items=150)
    reports = _gates(design, _config(margin), -2 * margin, 80, 3_000)
    for metric_id in (m.metric_id for m in METRICS):
        decisions = [r.metric(metric_id) for r in reports]
        detectable = [d for d in decisions if d.power is not None and d.power.margin_detectable]
        assert len(detectable) > 0.5 * len(decisions), metric_id
        caught = sum(d.verdict == "fail" for d in detectable)
        assert _not_below(caught, len(detectable), 0.8), (metric_id, caught, len(detectable))
    assert all(r.exit_code == 1 for r in reports if r.verdict == "fail")


def test_a_suite_too_small_for_its_margin_says_so_and_what_it_needs() -> None:
    margin = 0.05
    small = SimDesign(METRICS[1:], n_items=40)
    config = replace(_config(margin), metrics=(MetricRule("task_completion", 0.0, margin),))
    report = evaluate_gate(config, *simulate_pair(small, 7, delta=0.0))
    power = report.metric("task_completion").power
    assert power is not None and not power.margin_detectable
    assert power.min_detectable_regression is not None
    assert power.min_detectable_regression > margin
    assert power.items_needed is not None and power.items_needed > 40
    assert any("too small for its margin" in w for w in report.warnings)
    # At the size it asks for, the suite does resolve the margin.
    big = replace(small, n_items=power.items_needed)
    resized = [evaluate_gate(config, *simulate_pair(big, 100 + s, delta=0.0)) for s in range(10)]
    resolved = [r.metric("task_completion").power for r in resized]
    assert sum(p is not None and p.margin_detectable for p in resolved) >= 6


@pytest.mark.slow
@pytest.mark.timeout(3600)  # 2,000 simulated gates per case
@pytest.mark.parametrize(
    ("n_items", "metrics"), [(30, METRICS), (150, METRICS), (30, MIXED), (150, MIXED)]
)
def test_error_rates_hold_over_many_simulations(
    n_items: int, metrics: tuple[SimMetric, ...]
) -> None:
    margin = 0.05
    design = SimDesign(metrics, n_items=n_items, slices={"intent": 10})
    config = _config(margin, slices=("intent",))
    at_margin = [m for r in _gates(design, config, -margin, 1000, 10_000) for m in r.metrics]
    passes = sum(m.verdict == "pass" for m in at_margin)
    assert _not_above(passes, len(at_margin), ALPHA / 2), passes
    same = [
        m
        for r in _gates(design, _config(0.0, slices=("intent",)), 0.0, 1000, 20_000)
        for m in r.metrics
    ]
    assert _not_above(sum(m.verdict == "fail" for m in same), len(same), ALPHA / 2)


def test_the_items_or_runs_the_power_report_asks_for_resolve_the_margin() -> None:
    # Run noise dominates (no item effect): more runs per item can close the gap, as can items.
    noisy = SimMetric("answer_quality", "graded", mean=0.5, item_spread=0.0, run_noise=0.45)
    design = SimDesign((noisy,), n_items=30, runs_per_item=2)
    config = replace(_config(0.05), metrics=(MetricRule("answer_quality", 0.0, 0.05),))
    power = evaluate_gate(config, *simulate_pair(design, 1)).metric("answer_quality").power
    assert power is not None and not power.margin_detectable
    assert power.items_needed is not None and power.runs_per_item_needed is not None
    for resized in (
        replace(design, runs_per_item=power.runs_per_item_needed),
        replace(design, n_items=power.items_needed),
    ):
        reports = [evaluate_gate(config, *simulate_pair(resized, 10 + s)) for s in range(10)]
        mdrs = [r.metric("answer_quality").power.min_detectable_regression for r in reports]
        assert 0.85 * 0.05 <= float(np.median(mdrs)) <= 1.15 * 0.05, (resized, mdrs)
