"""An adopted alignment is a judge change: the rescoring schedule rescores the old baseline.

A baseline scored by the suite's offline judge goes stale when ``judges align`` adopts a
threshold for that judge (lenient-reviewer labels, ``judges.lenient_labels``): the schedule
requests exactly that baseline, and rescoring it records the aligned judge's fingerprint. A
refused alignment (shuffled labels) changes nothing: the schedule skips.
"""

from pathlib import Path

import dagster as dg
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.defs.launch import evaluate_build
from eval_pipeline.evaluation.planning import suite_judge_digests
from eval_pipeline.home import current_home
from eval_pipeline_tests.defs.graph_env import SUITE, GraphEnv, make_graph_env
from eval_pipeline_tests.judges.lenient_labels import lenient_labels


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GraphEnv:
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(tmp_path / "suites"))
    return make_graph_env(tmp_path, n_items=4)


def _align(suite: Path, labels: Path) -> int:
    args = ["judges", "align", "--suite", str(suite), "--labels", str(labels)]
    return CliRunner().invoke(cli, [*args, "--resamples", "500"]).exit_code


def _requested(definitions: dg.Definitions, env: GraphEnv) -> list[str | None]:
    schedule = definitions.resolve_schedule_def("baseline_rescore_daily_schedule")
    context = dg.build_schedule_context(instance=env.instance, resources=definitions.resources)
    answer = schedule(context)
    if isinstance(answer, dg.SkipReason):
        return []
    assert isinstance(answer, list)
    return [r.partition_key for r in answer if isinstance(r, dg.RunRequest)]


def test_an_adopted_alignment_stales_the_baseline_and_a_refused_one_does_not(
    env: GraphEnv, tmp_path: Path
) -> None:
    suite = tmp_path / "suites" / "mini.yaml"
    judged = SUITE + "judge: {model: offline-minilm, rubric_version: '1', calibration_set: %s}\n"
    suite.write_text(judged % "human-labels/agent-faithfulness-v1")
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    definitions = env.definitions()
    evaluate_build(definitions, env.instance, "base")
    before = suite_judge_digests(current_home().state_url)["mini"]
    assert env.registry.scored_with()["base"] == before

    assert _align(suite, lenient_labels(tmp_path / "shuffled.jsonl", shuffle=True)) == 1
    assert _requested(definitions, env) == []

    assert _align(suite, lenient_labels(tmp_path / "lenient.jsonl")) == 0
    after = suite_judge_digests(current_home().state_url)["mini"]
    assert after != before
    assert _requested(definitions, env) == ["base"]
    evaluate_build(definitions, env.instance, "base", raise_on_error=True)
    assert env.registry.scored_with()["base"] == after
    assert _requested(definitions, env) == []
