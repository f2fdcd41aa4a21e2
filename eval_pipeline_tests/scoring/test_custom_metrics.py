"""Custom metrics declared in a suite, scored by ``score`` on real sample-agent runs (issue 31).

Contract: a suite metric with ``scorer: module:Class`` (a module in the suite's folder, else an
installed one) or ``rubric: FILE`` is scored like a built-in one. The Python scorer's rows carry
the entry point as ``scorer_id``, its class's version and its arguments, and ``rebuild_scorer``
rebuilds it from a row (from the row alone when the module is installed). The rubric metric is
judged by the suite's (offline) judge through its cache: its rows
carry the judge's fingerprint and the rubric's ref, a run passes at the rubric's threshold (not
the judge's own), a rescore makes no judge call, and an edited rubric is judged afresh.
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.evaluation.runs_stage import stored_runs
from eval_pipeline.evaluation.scores_stage import score_runs
from eval_pipeline.evaluation.stage import open_stage
from eval_pipeline.evaluation.suite_parts import suite_scorers
from eval_pipeline.home import current_home
from eval_pipeline.scoring.custom import CustomMetricError
from eval_pipeline.scoring.registry import rebuild_scorer, score_run
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.suites.config import load_suite
from eval_pipeline_tests.scoring.builders import call, make_item, make_run
from eval_pipeline_tests.scoring.custom_fixtures import custom_project

BUILD = "custom-baseline"
RUNNER = "python:eval_pipeline.sample_agent.app:run_item?agent_build=baseline"


def _cli(*args: object) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _rows(metric_id: str) -> list[Score]:
    rows = [r for r in ScoreStore(current_home().store).read(BUILD) if r.metric_id == metric_id]
    assert len(rows) == 4  # 2 items x 2 runs
    return rows


def test_score_runs_both_custom_metrics_and_a_rescore_reuses_the_judge_cache(
    tmp_path: Path,
) -> None:
    project = custom_project(tmp_path, "e2e31")
    _cli("builds", "register", BUILD, "--suite", project.suite, "--runner", RUNNER)
    _cli("run", "--suite", project.suite, "--build", BUILD)
    scored = json.loads(
        _cli("score", "--suite", project.suite, "--build", BUILD, "--format", "json")
    )
    assert scored["scorer_versions"][project.metric_python] == f"{project.metric_python}@2"
    assert scored["scorer_versions"][project.metric_rubric] == f"{project.metric_rubric}@1"

    for row in _rows(project.metric_python):
        assert row.status == ScoreStatus.SCORED, row.reason
        assert (row.scorer_id, row.scorer_version) == (project.scorer_id, 2)
        assert row.scorer_args == {"max_words": 12}
        words = int(row.reason.split()[0])
        assert row.value == min(1.0, 12 / words)
    judged = _rows(project.metric_rubric)
    for row in judged:
        assert row.status == ScoreStatus.SCORED, row.reason
        assert row.scorer_id.startswith(f"rubric:{project.metric_rubric}@1+")
        assert row.judge_fingerprint and row.judge_backend == "offline-minilm"
        assert row.evidence["rubric"] == row.scorer_id.removeprefix("rubric:")
        # The rubric passes at 4 on 1..5, i.e. 0.75: not at the relevancy check's own 0.5.
        assert row.evidence["passed"] is (row.value is not None and row.value >= 0.75)

    # Rebuilt from their rows, both scorers give the rows' values on the same runs.
    stage = open_stage(current_home(), BUILD, project.suite)
    runs = {run.trace_id: run for run in stored_runs(stage)}
    items = {item.item_id: item for item in stage.dataset_items}
    for row in (_rows(project.metric_python)[0], judged[0]):
        scorer = rebuild_scorer(row, judge=stage.judge)
        assert row.trace_id is not None and row.item_id is not None
        (again,) = score_run(runs[row.trace_id], items[row.item_id], [scorer], build=BUILD)
        assert (again.value, again.scorer_id, again.scorer_args) == (
            row.value,
            row.scorer_id,
            row.scorer_args,
        )

    # A rescore of the unchanged suite asks the judge nothing.
    assert stage.judge is not None
    score_runs(stage)
    assert stage.judge.stats.calls == 0 and stage.judge.stats.hits >= len(judged)

    # The rubric's content is in the cache key: the same version, edited, is judged afresh.
    project.rubric.write_text(
        project.rubric.read_text().replace("in plain words", "in plain, polite words")
    )
    edited = open_stage(current_home(), BUILD, project.suite)
    score_runs(edited)
    assert edited.judge is not None and edited.judge.stats.calls > 0
    assert {r.scorer_id for r in _rows(project.metric_rubric)}.isdisjoint(
        {r.scorer_id for r in judged}
    )


INSTALLED = '''\
from eval_pipeline.scoring.base import ScorerBase


class FewCalls(ScorerBase):
    """1 when the run made at most two tool calls, else 0."""

    metric_id = "{metric}"
    metric_version = 4
    run_fields = frozenset({{"tool_calls"}})
    value_set = (0.0, 1.0)

    def verdict(self, run, item):
        return self.scored(1.0 if len(run.tool_calls) <= 2 else 0.0)
'''


def test_a_row_names_its_installed_entry_point_and_rebuilds_without_the_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "installed31_scorers.py").write_text(INSTALLED.format(metric="few31"))
    monkeypatch.syspath_prepend(str(tmp_path))
    # No suite was loaded in this process: the row alone names what wrote it.
    row = Score("few31", 1.0, ScoreStatus.SCORED, "installed31_scorers:FewCalls", 4)
    scorer = rebuild_scorer(row)
    (again,) = score_run(make_run([call("a"), call("b"), call("c")]), make_item("i"), [scorer])
    assert (again.value, again.scorer_id, again.scorer_version) == (
        0.0,
        "installed31_scorers:FewCalls",
        4,
    )
    with pytest.raises(ValueError, match="version 3, the code's scorer is version 4"):
        rebuild_scorer(replace(row, scorer_version=3))
    with pytest.raises(ValueError, match="scored by other31:FewCalls"):
        rebuild_scorer(replace(row, scorer_id="other31:FewCalls"))
    missing = Score("gone31", 1.0, ScoreStatus.SCORED, "gone31_scorers:Gone", 1)
    with pytest.raises(CustomMetricError, match="module 'gone31_scorers'"):
        rebuild_scorer(missing)


def test_a_suite_finds_an_installed_scorer_when_its_folder_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = tmp_path / "site"
    installed.mkdir()
    (installed / "installed32_scorers.py").write_text(INSTALLED.format(metric="few32"))
    monkeypatch.syspath_prepend(str(installed))
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "suite: inst\nrisk_tier: low\nmetrics:\n"
        '  - {id: few32, scorer: "installed32_scorers:FewCalls", threshold: 0.5}\n'
    )
    (scorer,) = suite_scorers(load_suite(suite), None)
    (row,) = score_run(make_run([call("a")]), make_item("i"), [scorer])
    assert (row.value, row.scorer_id) == (1.0, "installed32_scorers:FewCalls")
