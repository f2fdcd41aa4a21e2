"""``eval-pipeline calibrate variance``: repeated verdicts per item -> spread -> runs per item.

A suite whose judge is an HTTP model disagreeing with itself (a scripted loopback server whose
verdict scores vary between calls) gets every repeat sent to the model, not answered by the
cache; the JSON names the within- and between-item variance and the runs per item the target
half-width needs, and the judge's calibration report on the suite's set carries the result as
its ``variance`` field (kept when the judge is calibrated again, shown by ``judge_calibration``).
The deterministic offline judge has no within-item variance. Bad input exits 2 with one
``error:`` line; ``calibrate --labels ...`` works as before.
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.evaluation.calibration_stage import (
    calibrate_judge_on,
    calibrate_suite_judges,
    calibration_set,
    stored_report,
)
from eval_pipeline.evaluation.suite_parts import suite_judge
from eval_pipeline.home import current_home
from eval_pipeline.suites.config import load_suite
from eval_pipeline_tests.judges.chat_server import chat_server

SET = "human-labels/agent-faithfulness-v1"


def _verdict(score: float) -> dict[str, object]:
    return {"score": score, "passed": score >= 0.5, "reason": "scripted", "details": {"claims": []}}


def _suite(tmp_path: Path, base_url: str) -> Path:
    path = tmp_path / "varying-judge.yaml"
    path.write_text(
        "suite: varying-judge\nrisk_tier: low\n"
        "datasets:\n  - name: golden/support-agent-refunds-v1\n"
        "runs_per_item: 1\n"
        f"judge: {{model: judge-varies, rubric_version: '1', calibration_set: {SET}, "
        f"base_url: '{base_url}'}}\n"
        "metrics:\n  - {id: faithfulness, threshold: 0.5, max_regression: 0.1}\n"
    )
    return path


def _variance(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["calibrate", "variance", *args])
    return result.exit_code, result.output


def test_repeats_reach_the_model_and_land_in_the_calibration_report(tmp_path: Path) -> None:
    scores = [0.25, 0.75, 0.5] * 40
    with chat_server([("ok", _verdict(s)) for s in scores]) as server:
        suite = _suite(tmp_path, server.url)
        args = ["--suite", str(suite), "--repeats", "3", "--target-half-width", "0.05"]
        code, out = _variance(*args, "--limit", "4", "--format", "json")
        assert code == 0, out
        first_requests = len(server.bodies)
        code, again = _variance(*args, "--limit", "4", "--format", "json")
        assert code == 0, again
    result = json.loads(out)
    assert (result["repeats"], result["items"], result["verdicts"]) == (3, 4, 12)
    assert result["within_variance"] > 0.0
    assert result["runs_per_item"] is None or result["runs_per_item"] >= 1
    assert result["target_half_width"] == 0.05 and result["reason"]
    # 12 repeats, then the 22 items of the set calibrated once (through the cache); the second
    # measurement sends its 12 repeats again: repeats are never answered by the cache.
    assert first_requests == 12 + 22
    assert len(server.bodies) == first_requests + 12

    home = current_home()
    config = load_suite(suite)
    judge = suite_judge(config, state_url=home.state_url)
    assert judge is not None
    report = stored_report(home, judge.fingerprint.digest, SET)
    assert report is not None and report["variance"]["repeats"] == 3
    recalibrated = calibrate_judge_on(home, judge, calibration_set(SET))
    assert recalibrated["variance"] == report["variance"]


def test_the_offline_judge_does_not_disagree_with_itself() -> None:
    code, out = _variance(
        "--suite",
        "support-agent",
        "--repeats",
        "2",
        "--target-half-width",
        "0.2",
        "--items",
        "200",
        "--limit",
        "6",
        "--format",
        "json",
    )
    assert code == 0, out
    result = json.loads(out)
    assert result["within_variance"] == 0.0 and result["judge_backend"] == "offline-minilm"
    assert result["advice_items"] == 200 and result["runs_per_item"] == 1
    meta = calibrate_suite_judges(current_home())
    assert meta[f"{SET}:variance"]["runs_per_item"] == 1


def test_the_text_form_names_the_advice() -> None:
    code, out = _variance(
        "--suite", "support-agent", "--repeats", "2", "--target-half-width", "0.01", "--limit", "4"
    )
    assert code == 0, out
    assert "within-item variance 0" in out and "runs per item for half-width 0.01" in out


def test_bad_input_exits_2_with_one_error_line() -> None:
    code, out = _variance("--suite", "support-agent", "--repeats", "1", "--target-half-width", "1")
    assert code == 2 and "--repeats" in out
    code, out = _variance("--suite", "otel-smoke", "--repeats", "2", "--target-half-width", "0.1")
    assert code == 2 and out.startswith("error: ") and "no judge" in out
    code, out = _variance("--suite", "no-such-suite", "--repeats", "2", "--target-half-width", "1")
    assert code == 2 and "not found" in out


def test_calibrate_with_labels_still_works_beside_the_subcommand(tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,label\na,pass\nb,fail\n")
    verdicts = tmp_path / "verdicts.csv"
    verdicts.write_text("item_id,verdict\na,pass\nb,pass\n")
    result = CliRunner().invoke(
        cli, ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["false_pass_rate"] == 1.0
    missing = CliRunner().invoke(cli, ["calibrate", "--verdicts", str(verdicts)])
    assert missing.exit_code == 2 and "--labels" in missing.output
