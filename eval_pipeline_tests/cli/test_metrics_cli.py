"""``eval-pipeline metrics list`` / ``metrics show ID``: the catalogue on the command line.

Contract: ``metrics list --format json`` has one card per registered metric (what it reads,
range, direction, not-applicable rule, version, judged), generated from the scorer classes;
the text form is a table naming the same metrics; ``--suite S`` adds the suite's custom metrics
(a Python scorer, a rubric) with their source and marks the metrics it gates; ``metrics show``
prints one card, and an unknown id exits 2 listing the known ones.
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.scoring.registry import metric_card, registered_metric_ids
from eval_pipeline.scoring.sessions.registry import session_metric_ids
from eval_pipeline_tests.scoring.custom_fixtures import custom_project

KEYS = {"id", "version", "description", "layer", "reads", "range", "direction"}


def _run(*args: object, code: int = 0) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output
    return result.stdout if code == 0 else result.stderr


def test_list_has_a_card_per_registered_metric() -> None:
    listed = json.loads(_run("metrics", "list", "--format", "json"))["metrics"]
    assert [card["id"] for card in listed] == sorted(registered_metric_ids() | session_metric_ids())
    by_id = {card["id"]: card for card in listed}
    session = by_id["session.knowledge_retention"]
    assert (session["layer"], session["version"], session["judged"]) == ("session", 1, False)
    assert set(by_id["tool_correctness"]) >= KEYS
    assert by_id["tool_correctness"]["reads"]["span_kinds"] == ["execute_tool"]
    assert by_id["tool_correctness"]["not_applicable_when"] == (
        metric_card("tool_correctness").not_applicable_when
    )
    assert by_id["faithfulness"]["judged"] is True and by_id["tool_correctness"]["judged"] is False
    assert by_id["trace_completeness"]["range"]["values"] == [0.0, 1.0]
    table = _run("metrics", "list")
    assert table.splitlines()[1].split()[:4] == ["metric", "version", "layer", "range"]
    assert all(metric_id in table for metric_id in registered_metric_ids())


def test_show_prints_one_card_and_an_unknown_id_exits_2() -> None:
    card = json.loads(_run("metrics", "show", "hallucinated_actions", "--format", "json"))
    assert (card["version"], card["layer"]) == (3, "final_answer")
    assert "not applicable when" in _run("metrics", "show", "handoff_quality")
    error = _run("metrics", "show", "no_such_metric", code=2)
    assert (
        error.startswith("error: unknown metric id 'no_such_metric'")
        and "tool_correctness" in error
    )


def test_list_with_a_suite_shows_its_custom_metrics(tmp_path: Path) -> None:
    project = custom_project(tmp_path, "cli31")
    document = json.loads(_run("metrics", "list", "--suite", project.suite, "--format", "json"))
    by_id = {card["id"]: card for card in document["metrics"]}
    assert document["suite"] == "cli31" and project.metric_rubric in document["gated"]
    python, rubric = by_id[project.metric_python], by_id[project.metric_rubric]
    assert (python["version"], python["scorer_id"], python["judged"]) == (
        2,
        project.scorer_id,
        False,
    )
    assert python["source"].startswith(f"python {project.scorer_id} ({project.module}")
    assert python["arguments"] == ["max_words"]
    assert rubric["judged"] is True and rubric["source"] == f"rubric {project.rubric}"
    assert rubric["reads"]["run_fields"] == ["final_answer", "user_input"]
    assert "Does the answer explain" in rubric["description"]
    table = _run("metrics", "list", "--suite", project.suite)
    assert f"{project.metric_rubric} *" in table and "rubric cli31_explained.yaml" in table
    shown = _run("metrics", "show", project.metric_python, "--suite", project.suite)
    assert project.scorer_id in shown
