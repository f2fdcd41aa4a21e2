"""Verdict rules of docs/DESIGN.md section 8 on small hand-built score tables.

Missing scores fail (with the count by cause); a suite metric with no scores fails; too few
items is inconclusive, and the tier decides whether inconclusive blocks; a slice that
collapsed while the average held fails the metric and is named; unpaired items are used;
budgets fail over their limit or with latency missing; the same seed gives the same report.
"""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import (
    Budgets,
    GateConfig,
    MetricRule,
    evaluate_gate,
    render_markdown,
    render_text,
)
from eval_pipeline.gate.simulation import SimDesign, SimMetric, simulate_pair

from .builders import frame, score_rows

RULE = MetricRule("faithfulness", threshold=0.5, max_regression=0.05)
CONFIG = GateConfig(metrics=(RULE,), tier=gate_tier("medium"), n_resamples=1000)


def _graded(n_items: int, level: float, seed: int, runs: int = 3) -> list[float]:
    rng = np.random.default_rng(seed)
    item = np.repeat(rng.uniform(level - 0.1, level + 0.1, n_items), runs)
    return list(np.round(item + rng.uniform(-0.05, 0.05, item.size), 4))


def test_identical_builds_pass() -> None:
    scores = frame(score_rows("faithfulness", _graded(40, 0.8, 1), runs_per_item=3))
    report = evaluate_gate(CONFIG, scores, scores.copy())
    assert report.verdict == "pass" and report.exit_code == 0
    assert report.metric("faithfulness").delta == 0.0


def test_missing_scores_fail_and_are_counted_by_cause() -> None:
    values: list[float | None] = list(_graded(40, 0.8, 1))
    values[5] = None
    values[17] = None
    cand = frame(score_rows("faithfulness", values, runs_per_item=3, status="unscored"))
    cand.loc[17, "status"] = "error"
    cand = cand.drop(index=30)  # a run with no score row at all
    base = frame(score_rows("faithfulness", _graded(40, 0.8, 1), runs_per_item=3))
    decision = evaluate_gate(CONFIG, cand, base).metric("faithfulness")
    assert decision.verdict == "fail"
    assert (decision.missing.unscored, decision.missing.error, decision.missing.absent) == (1, 1, 1)
    assert decision.missing.total == 3 and decision.to_json()["missing"] == 3
    assert "3 of 120 scores missing" in decision.reason
    assert {"trace-faithfulness-1-2", "trace-faithfulness-5-2"} & {
        t for e in decision.evidence for t in e.trace_ids
    }


def test_items_the_baseline_ran_but_the_candidate_skipped_are_missing() -> None:
    base = frame(score_rows("faithfulness", _graded(40, 0.8, 1), runs_per_item=3))
    cand = base[base["item_id"] != "item007"]
    decision = evaluate_gate(CONFIG, cand, base).metric("faithfulness")
    assert decision.verdict == "fail" and decision.missing.absent == 3


def test_a_suite_metric_with_no_scores_fails() -> None:
    config = replace(CONFIG, metrics=(RULE, MetricRule("tool_correctness", 0.9, 0.0)))
    scores = frame(score_rows("faithfulness", _graded(40, 0.8, 1), runs_per_item=3))
    report = evaluate_gate(config, scores, scores)
    tool = report.metric("tool_correctness")
    assert tool.verdict == "fail" and tool.reason.startswith("no scores")
    assert report.metric("faithfulness").verdict == "pass"
    assert report.verdict == "fail"


def test_too_few_items_is_inconclusive_and_the_tier_decides() -> None:
    cand = frame(score_rows("faithfulness", [0.8, 0.9, 0.7], runs_per_item=1))
    for tier, exit_code in (("low", 0), ("high", 1)):
        report = evaluate_gate(replace(CONFIG, tier=gate_tier(tier)), cand, cand)
        decision = report.metric("faithfulness")
        assert decision.verdict == "inconclusive" and "too few" in decision.reason
        assert report.exit_code == exit_code


def test_a_no_regression_metric_has_a_zero_margin_and_its_inconclusive_follows_the_tier() -> None:
    rule = MetricRule("faithfulness", 0.5, 0.05, no_regression=True)
    cand = frame(score_rows("faithfulness", _graded(30, 0.8, 3), runs_per_item=3))
    base = frame(score_rows("faithfulness", _graded(30, 0.8, 4), runs_per_item=3))
    lenient = evaluate_gate(replace(CONFIG, metrics=(rule,), tier=gate_tier("low")), cand, base)
    assert lenient.metric("faithfulness").max_regression == 0.0
    assert lenient.verdict == "inconclusive" and lenient.exit_code == 0
    assert any("passes with a warning" in w for w in lenient.warnings)
    strict = evaluate_gate(replace(CONFIG, metrics=(rule,), tier=gate_tier("high")), cand, base)
    assert strict.verdict == "inconclusive" and strict.exit_code == 1


def test_an_untrusted_judge_metric_cannot_pass_but_can_fail() -> None:
    rule = MetricRule("faithfulness", 0.5, 0.05)
    same = frame(score_rows("faithfulness", _graded(60, 0.8, 3), runs_per_item=3))
    untrusted = {"faithfulness": "false-pass rate 0.27 above ceiling 0.10"}
    trusted = evaluate_gate(replace(CONFIG, metrics=(rule,)), same, same)
    assert trusted.metric("faithfulness").verdict == "pass"
    doubted = evaluate_gate(
        replace(CONFIG, metrics=(rule,), untrusted_metrics=untrusted), same, same
    )
    assert doubted.metric("faithfulness").verdict == "inconclusive"
    assert "untrusted judge" in doubted.metric("faithfulness").reason
    broken = frame(score_rows("faithfulness", _graded(60, 0.3, 5), runs_per_item=3))
    failed = evaluate_gate(
        replace(CONFIG, metrics=(rule,), untrusted_metrics=untrusted), broken, same
    )
    assert failed.metric("faithfulness").verdict == "fail"


def test_a_slice_that_collapsed_while_the_average_held_fails_and_is_named() -> None:
    design = SimDesign(
        (SimMetric("faithfulness", "graded", 0.8, 0.1, 0.05),), n_items=300, slices={"intent": 10}
    )
    cand, base = simulate_pair(design, 11, slice_deltas={("intent", "intent3"): -0.3})
    config = replace(CONFIG, slices=("intent",), metrics=(replace(RULE, max_regression=0.05),))
    decision = evaluate_gate(config, cand, base).metric("faithfulness")
    assert decision.delta is not None and decision.delta > -0.05  # the average held
    assert decision.verdict == "fail"
    assert "intent=intent3" in decision.reason and "while the average held" in decision.reason
    collapsed = [s for s in decision.slices if s.verdict == "fail"]
    assert [s.value for s in collapsed] == ["intent3"]
    assert all(e.slices["intent"] == "intent3" for e in decision.evidence)


def test_unpaired_items_are_used_on_their_side() -> None:
    base = frame(score_rows("faithfulness", _graded(40, 0.8, 1), runs_per_item=3))
    extra = frame(score_rows("faithfulness", _graded(10, 0.8, 9), runs_per_item=3))
    extra["item_id"] = "new-" + extra["item_id"]
    cand = pd.concat([base, extra], ignore_index=True)
    decision = evaluate_gate(CONFIG, cand, base).metric("faithfulness")
    assert (decision.n_candidate_items, decision.n_baseline_items) == (50, 40)
    assert decision.n_paired_items == 40
    assert decision.verdict == "pass"


def test_a_first_baseline_gates_on_the_floor_alone() -> None:
    first = replace(CONFIG, first_baseline=True)
    cand = frame(score_rows("faithfulness", _graded(40, 0.4, 1), runs_per_item=3))
    report = evaluate_gate(first, cand, None)
    assert report.metric("faithfulness").verdict == "fail"
    good = frame(score_rows("faithfulness", _graded(40, 0.8, 1), runs_per_item=3))
    assert evaluate_gate(first, good, None).verdict == "pass"
    assert evaluate_gate(CONFIG, good, None).verdict == "fail"  # not declared: no evidence


def test_interval_floor_mode_is_inconclusive_near_the_floor() -> None:
    cand = frame(score_rows("faithfulness", _graded(20, 0.51, 3), runs_per_item=3))
    point = evaluate_gate(CONFIG, cand, cand).metric("faithfulness")
    strict = evaluate_gate(replace(CONFIG, tier=gate_tier("critical")), cand, cand)
    assert point.verdict == "pass"
    assert strict.metric("faithfulness").verdict == "inconclusive"
    assert "inside the interval" in strict.metric("faithfulness").reason


@pytest.mark.parametrize(("latency", "verdict"), [(3.0, "pass"), (30.0, "fail")])
def test_budgets(latency: float, verdict: str) -> None:
    config = replace(CONFIG, budgets=Budgets(p95_latency_s=12.0, cost_per_task_usd=0.08))
    cand = frame(
        score_rows(
            "faithfulness", _graded(40, 0.8, 1), runs_per_item=3, latency_s=latency, cost_usd=0.02
        )
    )
    report = evaluate_gate(config, cand, cand)
    p95, cost = report.budgets
    assert (p95.budget, p95.verdict, p95.value) == ("p95_latency_s", verdict, latency)
    assert cost.verdict == "pass" and cost.value == pytest.approx(0.02)
    assert report.verdict == verdict


def test_a_budget_without_measurements_fails() -> None:
    config = replace(CONFIG, budgets=Budgets(p95_latency_s=12.0))
    cand = frame(score_rows("faithfulness", _graded(40, 0.8, 1), runs_per_item=3))
    budget = evaluate_gate(config, cand, cand).budgets[0]
    assert budget.verdict == "fail" and budget.missing == 120


def test_p95_interval_covers_the_point_estimate() -> None:
    design = SimDesign((SimMetric("faithfulness", "graded", 0.8),), n_items=80)
    cand, base = simulate_pair(design, 5)
    config = replace(CONFIG, budgets=Budgets(p95_latency_s=100.0))
    budget = evaluate_gate(config, cand, base).budgets[0]
    runs = cand.drop_duplicates(["item_id", "run_index"])["latency_s"]
    assert budget.value == pytest.approx(np.quantile(runs, 0.95, method="inverted_cdf"))
    assert budget.ci_low is not None and budget.ci_high is not None
    assert budget.ci_low <= budget.value <= budget.ci_high


def test_same_seed_same_report_other_seed_other_interval() -> None:
    design = SimDesign((SimMetric("faithfulness", "graded", 0.8),), n_items=60)
    cand, base = simulate_pair(design, 3, delta=-0.02)
    first = evaluate_gate(CONFIG, cand, base).to_json()
    assert evaluate_gate(CONFIG, cand, base).to_json() == first
    other = evaluate_gate(replace(CONFIG, seed=99), cand, base).to_json()
    assert other["metrics"][0]["ci_low"] != first["metrics"][0]["ci_low"]


def test_text_and_markdown_name_the_failure() -> None:
    cand = frame(score_rows("faithfulness", _graded(40, 0.4, 1), runs_per_item=3))
    base = frame(score_rows("faithfulness", _graded(40, 0.8, 1), runs_per_item=3))
    report = evaluate_gate(CONFIG, cand, base)
    assert render_text(report).startswith("gate: FAIL")
    markdown = render_markdown(report)
    assert "| `faithfulness` | **FAIL** |" in markdown
    assert "### Evidence (worst items)" in markdown and "`trace-faithfulness-" in markdown


def test_an_empty_candidate_fails_every_metric_and_budget() -> None:
    config = replace(CONFIG, budgets=Budgets(p95_latency_s=12.0))
    base = frame(score_rows("faithfulness", _graded(10, 0.8, 1), runs_per_item=3))
    empty = base.iloc[:0]
    report = evaluate_gate(config, empty, base)
    assert report.metric("faithfulness").reason.startswith("no scores")
    assert report.budgets[0].verdict == "fail"
    unscored = base.assign(value=None, status="unscored")
    decision = evaluate_gate(CONFIG, unscored, base).metric("faithfulness")
    assert decision.verdict == "fail" and "30 of 30 scores missing" in decision.reason


def test_a_baseline_without_slice_labels_borrows_the_candidates() -> None:
    design = SimDesign(
        (SimMetric("faithfulness", "graded", 0.8),), n_items=60, slices={"intent": 3}
    )
    cand, base = simulate_pair(design, 4)
    config = replace(CONFIG, slices=("intent",))
    decision = evaluate_gate(config, cand, base.drop(columns=["intent"])).metric("faithfulness")
    assert len(decision.slices) == 3
    assert all(s.baseline_mean is not None and s.n_items == 20 for s in decision.slices)


def test_perfect_builds_pass_a_zero_margin_as_in_the_reference() -> None:
    perfect = frame(score_rows("tool_correctness", [1.0] * 16, runs_per_item=2))
    config = replace(CONFIG, metrics=(MetricRule("tool_correctness", 0.95, 0.0),))
    decision = evaluate_gate(config, perfect, perfect).metric("tool_correctness")
    assert decision.verdict == "pass" and (decision.ci_low, decision.ci_high) == (0.0, 0.0)
    assert decision.power is not None and not decision.power.margin_detectable
    slipped = perfect.copy()
    slipped.loc[3, "value"] = 0.0
    assert evaluate_gate(config, slipped, perfect).metric("tool_correctness").verdict != "pass"
