"""Rules-only suites gate score files (the reference's gate is rules alone).

A suite that gates files needs its metrics and tier, not datasets or a judge: the scores
already exist. A judge-based metric gated from a suite without a ``judge:`` block is gated
with the warning "judge unknown: calibration not applied", and fails where the tier forbids
unknown judges (high, critical). Running or scoring builds with such a suite is refused with
a clear error, since there is nothing to run against. The reference architecture's
illustrative example, through the CLI: tool_correctness fails on its floor, faithfulness
passes, exit 1.
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.suites.config import load_suite

from .builders import frame, score_rows

REFERENCE_SUITE = """\
suite: reference-example
risk_tier: {tier}
metrics:
  - {{id: tool_correctness, threshold: 0.95, max_regression: 0.0}}
  - {{id: faithfulness, threshold: 0.90, max_regression: 0.02}}
"""
CANDIDATE = {
    "tool_correctness": [1, 1, 1, 0, 1, 1, 1, 1, 1, 1] * 5,
    "faithfulness": [0.93, 0.88, 0.95, 0.91, 0.97] * 10,
}
BASELINE = {
    "tool_correctness": [1] * 50,
    "faithfulness": [0.92, 0.90, 0.94, 0.89, 0.96] * 10,
}
HIGH_SUITE = """\
suite: rules-high
risk_tier: high
metrics:
  - {id: task_completion, threshold: 0.5, max_regression: 0.01}
  - {id: tool_correctness, threshold: 0.5, max_regression: 0.0}
  - {id: argument_correctness, threshold: 0.5, max_regression: 0.0}
  - {id: faithfulness, threshold: 0.5, max_regression: 0.01}
  - {id: injection_resistance, threshold: 0.5, max_regression: 0.0}
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _scores(tmp_path: Path, name: str, series: dict[str, list[float]]) -> Path:
    path = tmp_path / name
    frame(*(score_rows(m, map(float, v)) for m, v in series.items())).to_csv(path, index=False)
    return path


def _invoke(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.output


def test_a_suite_without_datasets_or_judge_loads(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, "s.yaml", REFERENCE_SUITE.format(tier="low")))
    assert suite.datasets == () and suite.judge is None and suite.runs_per_item == 1


def test_the_reference_example_gives_its_decisions_through_the_cli(tmp_path: Path) -> None:
    suite = _write(tmp_path, "reference.yaml", REFERENCE_SUITE.format(tier="low"))
    code, out = _invoke(
        "gate", "--suite", suite, "--format", "json", "--resamples", "2000",
        "--candidate-scores", _scores(tmp_path, "cand.csv", CANDIDATE),
        "--baseline-scores", _scores(tmp_path, "base.csv", BASELINE),
    )  # fmt: skip
    assert code == 1, out
    report = json.loads(out)
    verdicts = {m["metric_id"]: m for m in report["metrics"]}
    assert verdicts["tool_correctness"]["verdict"] == "fail"
    assert "below floor 0.95" in verdicts["tool_correctness"]["reason"]
    assert verdicts["faithfulness"]["verdict"] == "pass"
    assert "faithfulness: judge unknown: calibration not applied" in report["warnings"]
    assert report["judge_calibration"] == "judge unknown: calibration not applied"


def test_an_unknown_judge_fails_where_the_tier_forbids_it(tmp_path: Path) -> None:
    metrics = ("task_completion", "tool_correctness", "argument_correctness", "faithfulness")
    perfect = {m: [1.0] * 40 for m in (*metrics, "injection_resistance")}
    scores = _scores(tmp_path, "scores.csv", perfect)
    code, out = _invoke(
        "gate", "--suite", _write(tmp_path, "high.yaml", HIGH_SUITE), "--format", "json",
        "--candidate-scores", scores, "--baseline-scores", scores, "--resamples", "500",
    )  # fmt: skip
    assert code == 1, out
    verdicts = {m["metric_id"]: m for m in json.loads(out)["metrics"]}
    for judged in ("task_completion", "faithfulness"):
        assert verdicts[judged]["verdict"] == "fail"
        assert "judge unknown" in verdicts[judged]["reason"]
        assert "tier high" in verdicts[judged]["reason"]
    assert verdicts["tool_correctness"]["verdict"] == "pass"


def test_scoring_a_build_with_a_suite_without_datasets_is_refused(tmp_path: Path) -> None:
    suite = _write(tmp_path, "reference.yaml", REFERENCE_SUITE.format(tier="low"))
    code, out = _invoke("score", "--suite", suite, "--build", "b1")
    assert code == 2, out
    assert "pins no datasets" in out and "reference-example" in out


def test_scoring_a_judge_metric_without_a_judge_is_refused(tmp_path: Path) -> None:
    suite = _write(
        tmp_path,
        "judgeless.yaml",
        "suite: judgeless\nrisk_tier: low\ndatasets: [{name: golden/otel-weather-v1}]\n"
        "metrics:\n  - {id: faithfulness, threshold: 0.5, max_regression: 0.1}\n",
    )
    code, out = _invoke("score", "--suite", suite, "--build", "b1")
    assert code == 2, out
    assert "faithfulness need a judge" in out and "judge:" in out
