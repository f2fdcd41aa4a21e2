"""Dataset validity and judge calibration gate what depends on them, on every path.

A suite pinning a dataset that fails validation cannot run a build on it (``collect_runs``
refuses, naming the dataset and the failure), and no gate on it passes: through the store or
through score files, every metric fails with the dataset's failure as its cause. In the asset
graph, ``candidate_runs`` depends on ``dataset_versions`` and ``gate_decision/<suite>`` on
``judge_calibration``, so their blocking checks sit upstream of what they protect. A judge
whose scores carry no calibration cannot pass its metrics from a file either.
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.evaluation.stages import collect_runs, decide_gate, open_stage
from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
from eval_pipeline.home import Home, current_home
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.store import ScoreStore

SUITE = """\
suite: broken
risk_tier: low
datasets:
  - name: golden/broken-v1
runs_per_item: 2
metrics:
  - {id: tool_correctness, threshold: 0.5, max_regression: 0.1}
"""


def _publish_broken(home: Home) -> str:
    weather = DatasetStore(shipped_datasets_dir()).load("golden/otel-weather", "v1")
    (item,) = weather.items
    # An expected tool no schema defines: the dataset fails validation.
    bad = replace(item, expected_tool_calls=(ExpectedToolCall("teleport_user"),))
    broken = replace(weather, name="golden/broken", version="v1", items=(bad,), content_hash="")
    DatasetStore(home.datasets).publish(broken)
    return item.item_id


@pytest.fixture
def home(tmp_path: Path) -> Home:
    (tmp_path / "broken.yaml").write_text(SUITE, encoding="utf-8")
    return current_home().ensure()


def _store(home: Home, build: str, item: str) -> None:
    rows = [Score("tool_correctness", 1.0, "scored", "tool_correctness", 1) for _ in range(2)]
    ScoreStore(home.store).write(
        build,
        [r.with_context(build=build, item_id=item, run_index=i) for i, r in enumerate(rows)],
    )


def test_a_suite_pinning_an_invalid_dataset_cannot_run(home: Home, tmp_path: Path) -> None:
    _publish_broken(home)
    stage = open_stage(home, "b1", tmp_path / "broken.yaml")
    with pytest.raises(SuiteResolutionError, match=r"golden/broken@v1 failed validation.*teleport"):
        collect_runs(stage)


def test_no_gate_on_an_invalid_dataset_passes(home: Home, tmp_path: Path) -> None:
    item = _publish_broken(home)
    for build in ("b0", "b1"):
        _store(home, build, item)
    outcome = decide_gate(open_stage(home, "b1", tmp_path / "broken.yaml", baseline="b0"))
    decision = outcome.report.metric("tool_correctness")
    assert decision.verdict == "fail" and "golden/broken@v1 failed validation" in decision.reason
    scores = tmp_path / "scores.csv"
    ScoreStore(home.store).read_frame("b1").to_csv(scores, index=False)
    result = CliRunner().invoke(
        cli,
        ["gate", "--suite", str(tmp_path / "broken.yaml"), "--format", "json",
         "--candidate-scores", str(scores), "--baseline-scores", str(scores)],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    (metric,) = json.loads(result.output)["metrics"]
    assert "golden/broken@v1 failed validation" in metric["reason"]


def test_the_checks_sit_upstream_of_what_they_protect() -> None:
    import dagster as dg

    from eval_pipeline.definitions import defs

    graph = defs.get_repository_def().asset_graph
    assert dg.AssetKey("dataset_versions") in graph.get(dg.AssetKey("candidate_runs")).parent_keys
    assert (
        dg.AssetKey("judge_calibration")
        in graph.get(dg.AssetKey(["gate_decision", "support-agent"])).parent_keys
    )
