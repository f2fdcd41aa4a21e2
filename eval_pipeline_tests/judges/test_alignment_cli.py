"""``eval-pipeline judges align`` and ``judges agreement`` with the offline judge.

The label set is a lenient reviewer's: a support answer whose order facts are right passes even
when it adds an unverifiable remark ("Our courier Dalton left it at the front desk."), which the
offline judge fails (half its claims supported, score 0.5, pass needs every claim); a wrong date
fails for both. A pass threshold below 0.5 is what this reviewer means, so alignment is adopted:
the suite's judge gets a new fingerprint, the schedule's staleness test sees the baseline
scored before as stale, and the agreement report shows the gain. The same items with shuffled
labels carry no signal, and alignment is refused (exit 1) with nothing stored. Re-aligning an
aligned judge on the same labels gains nothing and is refused too.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from eval_pipeline.builds import stale_baselines
from eval_pipeline.cli import cli
from eval_pipeline.evaluation.planning import suite_judge_digests
from eval_pipeline.home import current_home
from eval_pipeline_tests.judges.lenient_labels import lenient_items, lenient_labels

SET = "human-labels/agent-faithfulness-v1"


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "suites"
    folder.mkdir()
    path = folder / "lenient.yaml"
    path.write_text(
        "suite: lenient-support\nrisk_tier: low\n"
        "datasets:\n  - name: golden/support-agent-refunds-v1\n"
        "runs_per_item: 1\n"
        f"judge: {{model: offline-minilm, rubric_version: '1', calibration_set: {SET}}}\n"
        "metrics:\n  - {id: faithfulness, threshold: 0.5, max_regression: 0.1}\n"
    )
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(folder))
    return path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def _align(suite: Path, labels: Path) -> tuple[int, dict[str, Any]]:
    code, out = _run("judges", "align", "--suite", str(suite), "--labels", str(labels),
                     "--resamples", "500", "--format", "json")  # fmt: skip
    assert code in (0, 1), out
    return code, json.loads(out)


def test_a_threshold_that_helps_is_adopted_and_changes_the_fingerprint(
    suite: Path, tmp_path: Path
) -> None:
    labels = lenient_labels(tmp_path / "lenient.jsonl")
    before = suite_judge_digests(current_home().state_url)["lenient-support"]
    code, result = _align(suite, labels)
    assert code == 0 and result["adopted"] is True, result["reason"]
    assert result["base_fingerprint"] == result["current_fingerprint"] == before
    gain_low, _ = result["gain_interval"]
    assert gain_low > 0
    assert result["aligned_balanced_accuracy"] > result["current_balanced_accuracy"]
    assert 0.0 < result["threshold"] <= 0.5
    after = suite_judge_digests(current_home().state_url)["lenient-support"]
    assert after == result["new_fingerprint"] != before
    # A baseline scored by the judge before the adoption is what the schedule rescores.
    scored_with: dict[str, str | None] = {"b1": before}
    assert stale_baselines({"lenient-support": "b1"}, scored_with, {"lenient-support": after})
    assert result["calibration"]["judge_fingerprint"] == after

    code, out = _run("judges", "agreement", "--suite", str(suite), "--labels", str(labels),
                     "--format", "json")  # fmt: skip
    assert code == 0, out
    sets = json.loads(out)["label_sets"]
    assert [s["calibration_set"] for s in sets] == [SET, str(labels)]
    lenient = sets[1]
    assert lenient["judge_fingerprint"] == after and lenient["n"] == 48
    assert sum(lenient["confusion"].values()) == 48
    assert lenient["balanced_accuracy"] > result["current_balanced_accuracy"]

    # The judge is aligned now: the same labels have nothing more to give, so it is refused.
    code, again = _align(suite, labels)
    assert code == 1 and again["adopted"] is False and again["current_fingerprint"] == after
    assert suite_judge_digests(current_home().state_url)["lenient-support"] == after


def test_shuffled_labels_are_refused_with_the_figures(suite: Path, tmp_path: Path) -> None:
    labels = lenient_labels(tmp_path / "shuffled.jsonl", shuffle=True)
    before = suite_judge_digests(current_home().state_url)["lenient-support"]
    code, result = _align(suite, labels)
    assert code == 1 and result["adopted"] is False
    assert result["new_fingerprint"] is None
    low, _ = result["gain_interval"]
    assert low <= 0 and "refused" in str(result["reason"])
    assert suite_judge_digests(current_home().state_url)["lenient-support"] == before
    assert _align(suite, labels) == (code, result)  # seeded folds and bootstrap: the same figures
    code, text = _run("judges", "align", "--suite", str(suite), "--labels", str(labels))
    assert code == 1 and "refused: balanced accuracy" in text


def test_agreement_text_has_the_confusion_matrix_and_bad_input_exits_2(
    suite: Path, tmp_path: Path
) -> None:
    code, out = _run("judges", "agreement", "--suite", str(suite))
    assert code == 0, out
    assert "confusion matrix" in out and "human fail" in out and SET in out
    missing = tmp_path / "nowhere.jsonl"
    code, out = _run("judges", "align", "--suite", str(suite), "--labels", str(missing))
    assert code == 2 and str(missing) in out and "error:" in out
    one_class = tmp_path / "one-class.jsonl"
    one_class.write_text(
        "".join(json.dumps({**row, "label": "pass"}) + "\n" for row in lenient_items()[:6])
    )
    code, out = _run("judges", "align", "--suite", str(suite), "--labels", str(one_class))
    assert code == 2 and "two human-failed" in out
