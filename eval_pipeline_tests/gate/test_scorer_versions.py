"""Scores from different scorer versions are never compared or pooled.

A scorer's version is bumped when its semantics change, so a candidate scored by
``tool_correctness@2`` against a baseline scored by ``@1`` compares two different metrics: the
metric fails, naming both versions. One file mixing versions of a metric is refused (bad
input, naming the row). The version comes from a ``scorer_version`` column or a ``@N`` suffix
on the metric id; a row whose two disagree is refused too.
"""

from dataclasses import replace

import pytest

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import GateConfig, MetricRule, ScoreFrameError, evaluate_gate

from .builders import frame, score_rows

CONFIG = GateConfig(
    metrics=(MetricRule("tool_correctness", 0.8, 0.0), MetricRule("faithfulness", 0.5, 0.1)),
    tier=gate_tier("low"),
    n_resamples=500,
)


def _scores(tool: str = "tool_correctness", **columns: object) -> list[dict[str, object]]:
    rows = score_rows(tool, [1.0] * 40, runs_per_item=2, **columns)
    return rows + score_rows("faithfulness", [0.9] * 40, runs_per_item=2)


def test_a_version_mismatch_fails_the_metric_naming_both_versions() -> None:
    report = evaluate_gate(
        CONFIG, frame(_scores("tool_correctness@2")), frame(_scores("tool_correctness@1"))
    )
    tool = report.metric("tool_correctness")
    assert tool.verdict == "fail" and report.exit_code == 1
    assert "tool_correctness@2" in tool.reason and "tool_correctness@1" in tool.reason
    assert report.metric("faithfulness").verdict == "pass"


def test_the_scorer_version_column_counts_as_much_as_the_suffix() -> None:
    cand = frame(_scores(scorer_version=2))
    base = frame(_scores(scorer_version=1))
    assert "@2" in evaluate_gate(CONFIG, cand, base).metric("tool_correctness").reason
    same = evaluate_gate(CONFIG, cand, frame(_scores("tool_correctness@2")))
    assert same.metric("tool_correctness").verdict == "pass"


def test_mixed_versions_in_one_file_are_refused() -> None:
    rows = _scores("tool_correctness@1")
    rows[7]["metric_id"] = "tool_correctness@2"
    with pytest.raises(ScoreFrameError, match=r"row 8, column 'metric_id'.*mixes scorer versions"):
        evaluate_gate(CONFIG, frame(rows), None)


def test_a_suffix_that_contradicts_the_version_column_is_refused() -> None:
    rows = _scores("tool_correctness@1", scorer_version=1)
    rows[3]["scorer_version"] = 2
    with pytest.raises(ScoreFrameError, match=r"row 4.*@1.*scorer_version 2"):
        evaluate_gate(replace(CONFIG, first_baseline=True), frame(rows), None)
