"""Versioned rubric files.

Rubrics are versioned package files: every task's rubric loads with a valid JSON schema that
requires score/passed/reason/details; rendering fills the declared fields and refuses a missing
required one; a rubric set version picks each task's newest rubric at or below it; the request's
input hash follows the rendered input.
"""

import jsonschema
import pytest

from eval_pipeline.judges.rubrics import RubricError, available_tasks, load_rubric

TASKS = (
    "faithfulness",
    "answer_relevancy",
    "task_completion",
    "plan_quality",
    "plan_adherence",
    "hallucination",
)


@pytest.mark.parametrize("task", TASKS)
def test_every_task_has_a_rubric_with_a_verdict_schema(task: str) -> None:
    rubric = load_rubric(task)
    assert rubric.task == task and rubric.ref == f"{task}@{rubric.version}"
    jsonschema.Draft202012Validator.check_schema(rubric.schema)
    assert set(rubric.schema["required"]) >= {"score", "passed", "reason", "details"}
    score = rubric.schema["properties"]["score"]
    assert (score["minimum"], score["maximum"]) == (0, 1)
    fields = {name: f"<{name}>" for name in rubric.required_fields}
    prompt = rubric.render(fields)
    for name in rubric.required_fields:
        assert f"<{name}>" in prompt


def test_tasks_listed() -> None:
    assert set(TASKS) <= set(available_tasks())


def test_render_formats_lists_and_marks_missing_optional_fields() -> None:
    rubric = load_rubric("faithfulness")
    prompt = rubric.render(
        {"answer": "Refund approved.", "contexts": ["status: approved", {"amount": 54}]}
    )
    assert "(not provided)" in prompt  # the optional question
    assert '"amount": 54' in prompt
    prompt = rubric.render({"answer": "Refund approved.", "contexts": ["a", "b"]})
    assert "[1] a\n[2] b" in prompt


def test_missing_required_field_is_an_error() -> None:
    with pytest.raises(
        RubricError, match=r"faithfulness@1: missing required field\(s\) \['contexts'\]"
    ):
        load_rubric("faithfulness").render({"answer": "x"})


def test_version_selection() -> None:
    assert load_rubric("hallucination", "1").version == "1"
    assert load_rubric("hallucination", "7").version == "1"  # newest at or below 7
    with pytest.raises(RubricError, match="at or below version 0"):
        load_rubric("hallucination", "0")
    with pytest.raises(RubricError, match="no rubric for task 'poetry'"):
        load_rubric("poetry")


def test_request_hash_follows_the_rendered_input() -> None:
    rubric = load_rubric("answer_relevancy")
    one = rubric.request({"question": "q?", "answer": "a"})
    same = rubric.request({"question": "q?", "answer": "a"})
    other = rubric.request({"question": "q?", "answer": "b"})
    assert one.input_hash == same.input_hash != other.input_hash
    assert (one.rubric_id, one.rubric_version, one.task) == (
        "answer_relevancy",
        "1",
        "answer_relevancy",
    )
    assert one.schema == rubric.schema
