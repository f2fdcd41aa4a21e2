"""The gate and ``not_applicable`` rows (docs/DESIGN.md sections 4 and 8).

A ``not_applicable`` row is neither a score nor a missing one: it is left out of the metric's
mean, does not make the metric fail as missing, and is reported per metric and per cause. A
metric that applies to no run at all has no evidence either way: inconclusive, never a pass.
A ``not_applicable`` row that carries a value is malformed.
"""

from dataclasses import replace

import pytest

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import GateConfig, MetricRule, ScoreFrameError, evaluate_gate, render_text

from .builders import frame, score_rows

RULE = MetricRule("handoff_quality", threshold=0.8, max_regression=0.1)
CONFIG = GateConfig(metrics=(RULE,), tier=gate_tier("medium"), n_resamples=500)
NO_HANDOFF = "no hand-off expected and none made"


def _with_not_applicable(every: int) -> list[dict[str, object]]:
    """40 items x 2 runs scored 1.0, every ``every``-th item not applicable on both runs."""
    rows = score_rows("handoff_quality", [1.0] * 80, runs_per_item=2, status="unscored")
    for row in rows:
        if int(str(row["item_id"])[4:]) % every == 0:
            row.update(value=None, status="not_applicable", reason=NO_HANDOFF)
    return rows


def test_not_applicable_rows_are_left_out_of_the_mean_and_are_not_missing() -> None:
    cand = frame(_with_not_applicable(4))
    decision = evaluate_gate(CONFIG, cand, cand.copy()).metric("handoff_quality")
    assert decision.verdict == "pass", decision.reason
    assert decision.candidate_mean == 1.0 and decision.missing.total == 0
    assert decision.n_candidate_items == 30
    assert decision.not_applicable == {NO_HANDOFF: 20}
    data = decision.to_json()
    assert data["not_applicable"] == 20
    assert data["not_applicable_causes"] == {NO_HANDOFF: 20}
    assert f"not applicable 20 ({NO_HANDOFF} 20)" in render_text(
        evaluate_gate(CONFIG, cand, cand.copy())
    )


def test_a_not_applicable_row_without_a_reason_is_counted_under_no_reason() -> None:
    cand = frame(_with_not_applicable(4)).drop(columns=["reason"])
    decision = evaluate_gate(CONFIG, cand, cand.copy()).metric("handoff_quality")
    assert decision.not_applicable == {"(no reason given)": 20}


def test_a_metric_that_applies_to_no_run_is_inconclusive_and_the_tier_decides() -> None:
    rows = score_rows("handoff_quality", [None] * 20, runs_per_item=2)
    for row in rows:
        row.update(status="not_applicable", reason=NO_HANDOFF)
    cand = frame(rows)
    for tier, exit_code in (("low", 0), ("high", 1)):
        report = evaluate_gate(replace(CONFIG, tier=gate_tier(tier)), cand, cand.copy())
        decision = report.metric("handoff_quality")
        assert decision.verdict == "inconclusive" and "applies to no run" in decision.reason
        assert report.exit_code == exit_code


def test_a_not_applicable_row_with_a_value_is_refused() -> None:
    rows = _with_not_applicable(4)
    rows[0]["value"] = 1.0
    with pytest.raises(ScoreFrameError, match=r"row 1, column 'value'.*not_applicable"):
        evaluate_gate(CONFIG, frame(rows), None)
