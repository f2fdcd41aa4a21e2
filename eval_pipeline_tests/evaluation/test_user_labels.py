"""Your labels calibrate your judge (issue 31): a labels file a suite names is a calibration set.

A suite's ``judge.calibration: {labels: FILE, task: RUBRIC}`` (the file relative to the suite)
calibrates the suite's judge with the same statistics as the shipped sets (``calibrate`` over
the judge's verdicts on the labelled rows) and the same trust rule (the suite's tier ceiling on
the false-pass rate decides whether judged metrics may gate). The report is stored under a name
that carries the file's content hash, so edited labels are a new calibration, never a stale one.
"""

import json
from pathlib import Path

import pytest

from eval_pipeline.evaluation.calibration_stage import ensure_calibrated, judge_block, tier_ceiling
from eval_pipeline.evaluation.stage import open_stage
from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
from eval_pipeline.home import current_home
from eval_pipeline.judges.calibration import calibrate
from eval_pipeline.judges.label_files import read_table
from eval_pipeline.judges.labelled_run import build_requests, run_judge
from eval_pipeline.judges.rubrics import load_rubric

SUITE = """\
suite: mine
risk_tier: low
datasets:
  - name: golden/retail-refunds-v1
judge:
  model: offline-minilm
  rubric_version: "1"
  calibration: {labels: labels/mine.csv, task: faithfulness}
metrics:
  - {id: faithfulness, threshold: 0.5, max_regression: 0.1}
"""

ROWS = [
    (
        "o1",
        "pass",
        "Your order #W1 was delivered on 2024-05-14.",
        '{"order_id": "#W1", "status": "delivered", "delivered_on": "2024-05-14"}',
    ),
    (
        "o2",
        "fail",
        "A refund of $45.00 was processed.",
        '{"refund": {"amount": 54.0, "status": "processed"}}',
    ),
    ("o3", "fail", "Your request was approved.", '{"request": "RF-1", "decision": "rejected"}'),
    (
        "o4",
        "pass",
        "Order #W7 is pending and has not shipped.",
        '{"order_id": "#W7", "status": "pending"}',
    ),
    (
        "o5",
        "fail",
        "Order #W9 shipped yesterday by express.",
        '{"order_id": "#W9", "status": "pending"}',
    ),
    ("o6", "pass", "The total was 254.13.", '{"order_id": "#W2", "total": 254.13}'),
]


def _labels(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["item_id,label,answer,contexts"]
    for item, label, answer, context in ROWS:
        contexts = json.dumps([context]).replace('"', '""')
        lines.append(f'{item},{label},"{answer}","{contexts}"')
    path.write_text("\n".join(lines) + "\n")


def test_a_labels_file_calibrates_the_suites_judge_like_a_shipped_set(tmp_path: Path) -> None:
    _labels(tmp_path / "labels/mine.csv")
    (tmp_path / "mine.yaml").write_text(SUITE)
    stage = open_stage(current_home().ensure(), "b1", tmp_path / "mine.yaml")
    judge = stage.judge
    assert judge is not None
    report = ensure_calibrated(stage, judge)
    assert report is not None
    assert report["n"] == len(ROWS)
    assert report["calibration_set"].startswith("labels/mine@")
    labels = read_table(tmp_path / "labels/mine.csv")
    verdicts = run_judge(judge, build_requests(labels, load_rubric("faithfulness"), "x")).verdicts
    direct = calibrate(labels, verdicts).to_json()
    for statistic in ("accuracy", "kappa", "false_pass_rate", "false_fail_rate", "intervals"):
        assert report[statistic] == direct[statistic], statistic
    reason = judge_block(stage.home, stage.suite, judge.fingerprint.digest)
    rate = report["false_pass_rate"]
    assert (reason is None) == (rate is not None and rate <= tier_ceiling("low")), reason


def test_edited_labels_are_a_new_calibration(tmp_path: Path) -> None:
    _labels(tmp_path / "labels/mine.csv")
    (tmp_path / "mine.yaml").write_text(SUITE)
    home = current_home().ensure()
    first = open_stage(home, "b1", tmp_path / "mine.yaml").suite.judge
    with (tmp_path / "labels/mine.csv").open("a") as handle:
        handle.write('o7,fail,It was cancelled.,"[""{}""]"\n')
    second = open_stage(home, "b1", tmp_path / "mine.yaml").suite.judge
    assert first is not None and second is not None
    assert first.calibration_set != second.calibration_set


def test_labels_broken_after_registration_are_bad_input_when_scoring(tmp_path: Path) -> None:
    labels = tmp_path / "labels/mine.csv"
    _labels(labels)
    labels.write_text(labels.read_text().replace(",fail,", ",perhaps,", 1))
    (tmp_path / "mine.yaml").write_text(SUITE)
    stage = open_stage(current_home().ensure(), "b1", tmp_path / "mine.yaml")
    assert stage.judge is not None
    with pytest.raises(SuiteResolutionError, match=r"mine\.csv: row 2, column 'label'"):
        ensure_calibrated(stage, stage.judge)
