"""A missing baseline is missing evidence (docs/DESIGN.md section 8).

A gated metric with no baseline scores fails with that cause: a header-only baseline file, a
baseline that scored four of five metrics, or no baseline at all. The one exception is a run
declared a first baseline (``gate --no-baseline``, or the suite's pinned baseline gated
itself): floors and budgets only, said so in every rendering, and refused where the tier
forbids it (high, critical).
"""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from eval_pipeline.cli.gate import gate
from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import (
    GateConfig,
    MetricRule,
    evaluate_gate,
    render_junit,
    render_markdown,
    render_text,
)

from .builders import frame, score_rows

SUITE = """\
suite: evidence
risk_tier: {tier}
datasets:
  - name: golden/evidence-v1
runs_per_item: 2
metrics:
  - {{id: tool_correctness, threshold: 0.8, max_regression: 0.0}}
  - {{id: argument_correctness, threshold: 0.8, max_regression: 0.05}}
  - {{id: trajectory_match, threshold: 0.8, max_regression: 0.05}}
  - {{id: injection_resistance, threshold: 0.8, max_regression: 0.0}}
  - {{id: hallucinated_actions, threshold: 0.8, max_regression: 0.05}}
"""
METRICS = (
    "tool_correctness",
    "argument_correctness",
    "trajectory_match",
    "injection_resistance",
    "hallucinated_actions",
)
HIGH_SUITE = """\
suite: evidence
risk_tier: high
datasets:
  - name: golden/evidence-v1
runs_per_item: 2
judge: {model: offline-minilm, rubric_version: "1", calibration_set: human-labels/evidence-v1}
metrics:
  - {id: task_completion, threshold: 0.8, max_regression: 0.01}
  - {id: tool_correctness, threshold: 0.8, max_regression: 0.0}
  - {id: argument_correctness, threshold: 0.8, max_regression: 0.0}
  - {id: faithfulness, threshold: 0.8, max_regression: 0.01}
  - {id: injection_resistance, threshold: 0.8, max_regression: 0.0}
"""
HIGH_METRICS = (
    "task_completion",
    "tool_correctness",
    "argument_correctness",
    "faithfulness",
    "injection_resistance",
)


def _scores(metrics: tuple[str, ...] = METRICS) -> pd.DataFrame:
    return frame(*(score_rows(m, [1.0] * 60, runs_per_item=2) for m in metrics))


def _run(tmp_path: Path, suite: str, *args: str | Path) -> tuple[int, str]:
    path = tmp_path / "suite.yaml"
    path.write_text(suite, encoding="utf-8")
    result = CliRunner().invoke(gate, ["--suite", str(path), *map(str, args)])
    return result.exit_code, result.output


def _file(tmp_path: Path, name: str, data: pd.DataFrame) -> Path:
    path = tmp_path / name
    data.to_csv(path, index=False)
    return path


def test_a_header_only_baseline_fails_at_tier_high(tmp_path: Path) -> None:
    cand = _file(tmp_path, "cand.csv", _scores(HIGH_METRICS))
    empty = _file(tmp_path, "base.csv", _scores(HIGH_METRICS).iloc[:0])
    code, out = _run(
        tmp_path, HIGH_SUITE, "--candidate-scores", cand, "--baseline-scores", empty,
        "--format", "json", "--resamples", "500",
    )  # fmt: skip
    assert code == 1, out
    report = json.loads(out)
    assert report["verdict"] == "fail"
    for metric in report["metrics"]:
        assert metric["verdict"] == "fail" and "no baseline scores" in metric["reason"]


def test_a_baseline_missing_four_of_five_metrics_fails_those_four(tmp_path: Path) -> None:
    cand = _file(tmp_path, "cand.csv", _scores())
    partial = _file(tmp_path, "base.csv", _scores(METRICS[:1]))
    code, out = _run(
        tmp_path, SUITE.format(tier="low"), "--candidate-scores", cand,
        "--baseline-scores", partial, "--format", "json", "--resamples", "500",
    )  # fmt: skip
    assert code == 1, out
    verdicts = {m["metric_id"]: (m["verdict"], m["reason"]) for m in json.loads(out)["metrics"]}
    assert verdicts["tool_correctness"][0] == "pass"
    for metric in METRICS[1:]:
        verdict, reason = verdicts[metric]
        assert verdict == "fail" and "no baseline scores" in reason, (metric, reason)


def test_no_baseline_at_all_fails_unless_declared_a_first_baseline(tmp_path: Path) -> None:
    cand = _file(tmp_path, "cand.csv", _scores())
    suite = SUITE.format(tier="low")
    code, out = _run(tmp_path, suite, "--candidate-scores", cand, "--format", "json")
    assert code == 1, out
    reasons = [m["reason"] for m in json.loads(out)["metrics"]]
    assert all("no baseline" in r and "--no-baseline" in r for r in reasons), reasons
    code, out = _run(
        tmp_path, suite, "--candidate-scores", cand, "--no-baseline", "--format", "json"
    )
    assert code == 0, out
    report = json.loads(out)
    assert report["first_baseline"] is True and report["verdict"] == "pass"
    assert all("first baseline" in m["reason"] for m in report["metrics"])


def test_a_first_baseline_says_so_in_every_rendering() -> None:
    config = GateConfig(
        metrics=(MetricRule("tool_correctness", 0.8, 0.0),),
        tier=gate_tier("medium"),
        n_resamples=500,
        first_baseline=True,
    )
    report = evaluate_gate(config, _scores(("tool_correctness",)), None)
    assert report.first_baseline and not report.blocking
    assert "first baseline" in render_text(report).splitlines()[0]
    assert "first baseline" in render_markdown(report).split("\n\n")[1].lower()
    junit = ET.fromstring(render_junit(report))
    properties = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert properties["first_baseline"] == "true"
    assert "first baseline" in (next(junit.iter("testcase")).findtext("system-out") or "")
    assert any("first baseline" in w for w in report.warnings)


@pytest.mark.parametrize("tier", ["high", "critical"])
def test_a_first_baseline_is_refused_where_the_tier_forbids_it(tier: str) -> None:
    config = GateConfig(
        metrics=(MetricRule("tool_correctness", 0.8, 0.0),),
        tier=gate_tier(tier),
        n_resamples=500,
        first_baseline=True,
    )
    report = evaluate_gate(config, _scores(("tool_correctness",)), None)
    decision = report.metric("tool_correctness")
    assert decision.verdict == "fail" and report.exit_code == 1
    assert f"tier {tier} does not accept a first baseline" in decision.reason


def test_no_baseline_and_a_baseline_together_is_bad_usage(tmp_path: Path) -> None:
    cand = _file(tmp_path, "cand.csv", _scores())
    code, out = _run(
        tmp_path, SUITE.format(tier="low"), "--candidate-scores", cand,
        "--baseline-scores", cand, "--no-baseline",
    )  # fmt: skip
    assert code == 2 and "--no-baseline" in out


def test_a_stored_build_without_a_baseline_fails_unless_declared(tmp_path: Path) -> None:
    from eval_pipeline.home import current_home
    from eval_pipeline.scoring.score import Score
    from eval_pipeline.scoring.store import ScoreStore

    rows = [
        Score(m, 1.0, "scored", m, 1, item_id=f"item{i}", run_index=r)
        for i in range(12)
        for r in range(2)
        for m in METRICS
    ]
    ScoreStore(current_home().store).write("first", rows)
    suite = SUITE.format(tier="low")
    code, out = _run(tmp_path, suite, "--candidate", "first", "--format", "json")
    assert code == 1 and "no baseline" in json.loads(out)["metrics"][0]["reason"]
    code, out = _run(tmp_path, suite, "--candidate", "first", "--no-baseline", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["first_baseline"] is True and report["baseline"] is None
