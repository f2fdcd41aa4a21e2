"""History across a suite's builds and flaky items (``compare.history``, ``compare.flaky``).

Contract: an item is flaky when its runs disagree more than the build's other items' run noise
explains (a build whose every item is equally noisy flags none; where the others never
disagree, any disagreement is flaky); its share of the interval's width is how much narrower
the interval on the build's mean would be if its runs agreed, and it stays in every mean.
``eval-pipeline history`` lists the suite's builds oldest first with mean, interval, the
metric's verdict and the release from each stored gate report, the pinned baseline marked.
"""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.compare.flaky import flaky_items
from eval_pipeline.compare.history import mean_interval, metric_history
from eval_pipeline_tests.compare.story_home import StoryHome, build_story_home


def _frame(values: dict[str, list[float]]) -> pd.DataFrame:
    rows = [
        {"item_id": item, "run_index": r, "metric_id": "m", "value": v, "status": "scored"}
        for item, runs in values.items()
        for r, v in enumerate(runs)
    ]
    return pd.DataFrame(rows)


def test_an_item_whose_runs_disagree_beyond_the_builds_noise_is_flaky() -> None:
    stable = {f"s{k:02d}": [k / 30] * 3 for k in range(30)}
    frame = _frame({**stable, "flip": [0.0, 1.0, 0.0]})
    (flaky,) = flaky_items(frame, "m")
    assert flaky.item_id == "flip" and flaky.values == (0.0, 1.0, 0.0) and flaky.p_value == 0.0
    # Its share: the width lost if its runs agreed, from the clustered variance of the mean.
    means = frame.groupby("item_id")["value"].mean().to_numpy()
    f = (np.var([0.0, 1.0, 0.0], ddof=1) / 3) / ((means - means.mean()) ** 2).sum()
    assert flaky.share_of_width == pytest.approx(1 - np.sqrt(1 - f))
    before = mean_interval(frame, "m")
    assert before[0] == pytest.approx(means.mean())  # still in the mean

    rng = np.random.default_rng(5)
    noisy = {f"n{k:02d}": list(rng.integers(0, 2, 3).astype(float)) for k in range(30)}
    assert flaky_items(_frame(noisy), "m") == []  # everyone this noisy: that is chance here


def test_history_orders_builds_and_carries_verdicts_and_pins() -> None:
    frames = [("b1", _frame({"i": [1.0, 1.0], "j": [0.5, 0.5]})), ("b2", _frame({"i": [0.0]}))]
    reports = {"b2": {"baseline": "b1", "blocking": True, "metrics": [
        {"metric_id": "m", "verdict": "fail"}]}}  # fmt: skip
    first, second = metric_history(frames, "m", pinned="b1", gate_reports=reports)
    assert (first.build, first.mean, first.pinned, first.baseline_of) == ("b1", 0.75, True, ("b2",))
    assert first.verdict is None and first.ci_low is not None and 0 <= first.ci_low <= 0.75
    assert (second.verdict, second.release, second.gated_against) == ("fail", "no-go", "b1")
    assert second.ci_low is None  # one item: no interval


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> StoryHome:
    return build_story_home(tmp_path_factory.mktemp("story-history"), items=3)


def test_the_history_command_lists_the_suites_builds(
    story: StoryHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(story.root))
    args = ["history", "--suite", str(story.suite), "--metric", "hallucinated_actions"]
    result = CliRunner().invoke(cli, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    builds = {b["build"]: b for b in document["builds"]}
    assert list(builds) == [story.baseline, story.defect]
    assert builds[story.baseline]["pinned_baseline"] is True
    assert builds[story.baseline]["baseline_of"] == [story.defect]
    stored = json.loads((story.root / "store" / "gates" / f"{story.defect}.json").read_text())
    verdict = next(
        m["verdict"] for m in stored["metrics"] if m["metric_id"] == "hallucinated_actions"
    )
    assert builds[story.defect]["verdict"] == verdict
    assert builds[story.defect]["release"] == ("no-go" if stored["blocking"] else "go")
    text = CliRunner().invoke(cli, args).stdout
    assert "pinned baseline" in text and story.defect in text

    bad = CliRunner().invoke(cli, ["history", "--suite", str(story.suite), "--metric", "nope"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: --metric nope: suite story")
