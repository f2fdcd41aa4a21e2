"""The reference architecture's illustrative gate example reproduces its decisions.

The reference (seed-reference-architecture, "The release gate") gates two metrics on 50 runs:
tool_correctness (floor 0.95, margin 0) fails on its floor with a mean of 0.9; faithfulness
(floor 0.90, margin 0.02) passes; the overall verdict is fail and CI exits 1.
"""

import pytest

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import (
    GateConfig,
    MetricRule,
    evaluate_gate,
    render_json,
)

from .builders import frame, score_rows

CANDIDATE = {
    "tool_correctness": [1, 1, 1, 0, 1, 1, 1, 1, 1, 1] * 5,
    "faithfulness": [0.93, 0.88, 0.95, 0.91, 0.97] * 10,
}
BASELINE = {
    "tool_correctness": [1] * 50,
    "faithfulness": [0.92, 0.90, 0.94, 0.89, 0.96] * 10,
}
RULES = (MetricRule("tool_correctness", 0.95, 0.0), MetricRule("faithfulness", 0.90, 0.02))


@pytest.mark.parametrize("tier", ["low", "medium", "high", "critical"])
def test_reference_example_decisions(tier: str) -> None:
    config = GateConfig(metrics=RULES, tier=gate_tier(tier), n_resamples=2000)
    report = evaluate_gate(
        config,
        frame(*(score_rows(m, v) for m, v in CANDIDATE.items())),
        frame(*(score_rows(m, v) for m, v in BASELINE.items())),
    )
    tool = report.metric("tool_correctness")
    assert tool.verdict == "fail"
    assert "floor 0.95" in tool.reason
    assert tool.candidate_mean == pytest.approx(0.9)
    assert report.metric("faithfulness").verdict == "pass"
    assert report.metric("faithfulness").delta == pytest.approx(0.006)
    assert report.verdict == "fail"
    assert report.exit_code == 1


def test_reference_example_evidence_points_at_the_failed_runs() -> None:
    config = GateConfig(metrics=RULES, tier=gate_tier("medium"), n_resamples=1000)
    report = evaluate_gate(
        config,
        frame(*(score_rows(m, v) for m, v in CANDIDATE.items())),
        frame(*(score_rows(m, v) for m, v in BASELINE.items())),
    )
    evidence = report.metric("tool_correctness").evidence
    # The candidate's zeros sit at positions 3, 13, 23, ...: those items, with their traces.
    failed = {f"item{k:03d}" for k in range(3, 50, 10)}
    assert {e.item_id for e in evidence} == failed
    assert all(e.delta == -1.0 and e.trace_ids for e in evidence)
    assert '"verdict": "fail"' in render_json(report)
