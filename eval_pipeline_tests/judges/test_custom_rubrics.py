"""A rubric a team writes in YAML is a rubric like the shipped ones, and calibrates like them.

Contract (``judges.custom_rubrics``): the file's criteria, scale and pass threshold become a
prompt and a verdict schema (rating bounded by the scale, one entry per criterion); the content
digest, never its formatting, is in the version every request carries, so the cache key
changes with the content. Once its suite is loaded, the rubric's metric id is usable wherever a
shipped task is: ``load_rubric`` finds it, and a labels file calibrates the suite's judge on it
through ``calibrate_judge_on``, the verdicts passing at the rubric's threshold (the same rule
its score rows follow), not at the offline check's own.
"""

from pathlib import Path

import pandas as pd
import pytest
import yaml

from eval_pipeline.evaluation.calibration_stage import CalibrationSet, calibrate_judge_on
from eval_pipeline.home import current_home
from eval_pipeline.judges.cache import cache_key
from eval_pipeline.judges.custom_rubrics import RubricSpecError, parse_custom_rubric
from eval_pipeline.judges.factory import judge_from_config
from eval_pipeline.judges.labelled_run import build_requests, run_judge
from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline.suites.config import load_suite
from eval_pipeline_tests.scoring.custom_fixtures import RUBRIC, custom_project

LABELS = [
    ("l1", "Where is my order #W1?", "Your order #W1 shipped on May 2 and arrives Friday.", "pass"),
    ("l2", "Where is my order #W1?", "Order #W1 is on its way.", "pass"),
    ("l3", "Can I get a refund for #W2?", "Our store opens at nine in the morning.", "fail"),
    ("l4", "Can I get a refund for #W2?", "I have refunded $54 for order #W2.", "pass"),
    ("l5", "Cancel order #W3 please.", "The weather is sunny today.", "fail"),
    ("l6", "Cancel order #W3 please.", "Hello! How can I help you?", "fail"),
    ("l7", "Where is my order #W1?", "I can help with orders and refunds.", "fail"),
    ("l8", "Where is my order #W1?", "We ship most orders within two days.", "fail"),
]


def _rubric(text: str = RUBRIC) -> object:
    return parse_custom_rubric(yaml.safe_load(text), metric_id="team_metric", source="r.yaml")


def test_the_file_becomes_a_prompt_and_a_schema_on_its_scale() -> None:
    rubric = _rubric(RUBRIC.replace("plain words", "plain {words}"))
    assert rubric.task == "answer_relevancy" and rubric.ref.startswith("team_metric@1+")
    assert "2. The answer is addressed to the customer, in plain {words}." in rubric.render(
        {"question": "q", "answer": "a"}
    )
    rating = rubric.schema["properties"]["details"]["properties"]["rating"]
    assert (rating["minimum"], rating["maximum"]) == (1, 5)
    assert rubric.request({"question": "q", "answer": "a"}).rubric_version == rubric.full_version


def test_the_content_not_its_formatting_is_in_the_cache_key() -> None:
    fingerprint = judge_from_config("offline-minilm").fingerprint
    fields = {"question": "q", "answer": "a"}
    key = cache_key(fingerprint, _rubric().request(fields))
    reformatted = "# a comment\n" + RUBRIC.replace(
        "scale: {min: 1, max: 5}", "scale:\n  min: 1\n  max: 5"
    )
    assert cache_key(fingerprint, _rubric(reformatted).request(fields)) == key
    edited = RUBRIC.replace("pass_threshold: 4", "pass_threshold: 3")
    assert cache_key(fingerprint, _rubric(edited).request(fields)) != key


def test_a_problem_is_named_by_its_field() -> None:
    with pytest.raises(RubricSpecError) as raised:
        _rubric(RUBRIC.replace("criteria:", "criterias:"))
    fields = {".".join(map(str, path)) for path, _ in raised.value.problems}
    assert {"criteria", "criterias"} <= fields


def test_labels_calibrate_the_suites_judge_on_the_rubric_metric(tmp_path: Path) -> None:
    project = custom_project(tmp_path, "calib31")
    load_suite(project.suite)  # defines the rubric metric for the process
    rubric = load_rubric(project.metric_rubric)
    assert rubric.source == str(project.rubric)
    labels = tmp_path / "team_labels.jsonl"
    frame = pd.DataFrame(LABELS, columns=["item_id", "question", "answer", "label"])
    frame.to_json(labels, orient="records", lines=True)

    judge = judge_from_config("offline-minilm", "1")
    entry = CalibrationSet("team/explained-v1", labels, project.metric_rubric)
    report = calibrate_judge_on(current_home().ensure(), judge, entry)
    assert report["n"] == len(LABELS) and report["calibration_set"] == "team/explained-v1"
    assert report["judge_fingerprint"] == judge.fingerprint.digest

    verdicts = run_judge(judge, build_requests(frame, rubric, str(labels))).verdicts
    # Passed at 4 on 1..5 (0.75): one rule for calibration and score rows alike; the
    # relevancy check alone would pass l7 and l8 (its own rule passes at 0.5).
    assert list(verdicts["verdict"] == "pass") == list(verdicts["score"] >= 0.75)
    between = verdicts[(verdicts["score"] >= 0.5) & (verdicts["score"] < 0.75)]
    assert set(between["item_id"]) == {"l7", "l8"} and set(between["verdict"]) == {"fail"}
