"""The item-by-item comparison (``eval_pipeline.compare``) on real and on synthetic builds.

Contract: per metric every item of either build falls in exactly one group: regressed (the
candidate's mean is lower, or it lost a score the baseline has: those first), improved,
unchanged or unpaired; each group is ranked by effect; every run of both builds stays with its
item (score, status, reason, trace), and a shown item carries its reference and each run's
stored, redacted answer and tool calls. A limit keeps the largest effects and never the counts.
"""

import time

import numpy as np
import pandas as pd
import pytest

from eval_pipeline.compare.changes import item_changes
from eval_pipeline.compare.comparison import ComparisonInputError, compare_builds, compare_frames
from eval_pipeline.home import current_home
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.compare.story_home import StoryHome, build_story_home


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> StoryHome:
    return build_story_home(tmp_path_factory.mktemp("story"))


@pytest.fixture
def at_story(story: StoryHome, monkeypatch: pytest.MonkeyPatch) -> StoryHome:
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(story.root))
    return story


def _rows(build: str, values: dict[str, list[float | None]], metric: str = "m") -> list[dict]:
    rows = []
    for item, runs in values.items():
        for run, value in enumerate(runs):
            status = "scored" if value is not None else "error"
            rows.append(
                {"build": build, "item_id": item, "run_index": run, "metric_id": metric,
                 "value": value, "status": status, "reason": f"r{run}",
                 "trace_id": f"{build}-{item}-{run}", "dataset": None, "dataset_version": None}
            )  # fmt: skip
    return rows


def test_items_fall_in_one_group_each_ranked_by_effect() -> None:
    base = pd.DataFrame(
        _rows(
            "b",
            {
                "lost": [1.0, 1.0],
                "down": [1.0, 0.5],
                "big": [1.0, 1.0],
                "up": [0.0, 0.0],
                "same": [0.5, 0.5],
                "gone": [1.0, 1.0],
            },
        )
    )
    cand = pd.DataFrame(
        _rows(
            "c",
            {
                "lost": [1.0, None],
                "down": [0.5, 0.5],
                "big": [0.0, 0.0],
                "up": [1.0, 0.0],
                "same": [0.0, 1.0],
                "new": [1.0, 1.0],
            },
        )
    )
    (m,) = item_changes(cand, base)  # fmt: skip
    groups = {d: [i.item_id for i in items] for d, items in m.groups.items()}
    # Lost scores first (also a baseline item the candidate never ran), then largest drop.
    assert groups == {
        "regressed": ["gone", "lost", "big", "down"],
        "improved": ["up"],
        "unchanged": ["same"],
        "unpaired": ["new"],
    }
    lost = m.groups["regressed"][1]
    assert lost.missing == 1 and lost.candidate_mean == 1.0 and lost.delta == 0.0
    assert [(r.run_index, r.status, r.trace_id) for r in lost.candidate_runs] == [
        (0, "scored", "c-lost-0"), (1, "error", "c-lost-1")
    ]  # fmt: skip
    assert [r.reason for r in lost.baseline_runs] == ["r0", "r1"]
    big = m.groups["regressed"][2]
    assert big.delta == -1.0 and len(big.candidate_runs) == len(big.baseline_runs) == 2


def test_not_applicable_runs_are_shown_but_never_averaged() -> None:
    base = pd.DataFrame(_rows("b", {"i": [1.0, 1.0]}))
    cand = pd.DataFrame(_rows("c", {"i": [1.0, 0.0]}))
    cand.loc[1, ["status", "value"]] = ["not_applicable", np.nan]
    (m,) = item_changes(cand, base)
    (item,) = m.groups["unchanged"]
    assert item.candidate_mean == 1.0 and item.missing == 0
    assert [r.status for r in item.candidate_runs] == ["scored", "not_applicable"]


def test_a_limit_keeps_the_largest_effects_and_every_count() -> None:
    drops = {f"i{k:02d}": [1.0 - k / 20] for k in range(20)}
    base = pd.DataFrame(_rows("b", {k: [1.0] for k in drops}))
    cand = pd.DataFrame(_rows("c", drops))
    comparison = compare_frames(cand, base, names=("c", "b"), limit=3)
    (m,) = comparison.metrics
    assert [i.item_id for i in m.groups["regressed"]] == ["i19", "i18", "i17"]
    assert m.count("regressed") == 19 and m.count("unchanged") == 1
    with pytest.raises(ComparisonInputError, match=r"--metric nope: build c has no scores"):
        compare_frames(cand, base, names=("c", "b"), metrics=("nope",))
    with pytest.raises(ComparisonInputError, match=r"--slice intent=x: .*no slice 'intent'"):
        compare_frames(cand, base, names=("c", "b"), slice_=("intent", "x"))


def test_the_seeded_defect_regresses_hallucinated_actions_with_its_runs_shown(
    at_story: StoryHome,
) -> None:
    home = current_home()
    comparison = compare_builds(home, at_story.defect, at_story.baseline, limit=None)
    by_metric = {m.metric_id: m for m in comparison.metrics}
    actions = by_metric["hallucinated_actions"]
    regressed = actions.groups["regressed"]
    assert regressed, "the defect claims unissued refunds: some item must regress"
    deltas = [i.delta for i in regressed]
    assert all(d is not None and d < 0 for d in deltas) and deltas == sorted(deltas)

    store = ScoreStore(home.store)
    cand = store.read_frame(at_story.defect)
    rows = cand[cand["metric_id"] == "hallucinated_actions"]
    shown = sum(len(i.candidate_runs) for i in actions.items())
    assert shown == len(rows)  # every run of every item, all groups

    runs = {r.trace_id: r for r in TraceStore(home.store).runs(at_story.defect)}
    worst = regressed[0]
    for run in worst.candidate_runs:
        detail = comparison.detail("candidate", run.trace_id)
        assert detail is not None and detail.answer == runs[str(run.trace_id)].final_answer
        assert [c["name"] for c in detail.tool_calls] == list(runs[str(run.trace_id)].tool_names)
    assert all(comparison.detail("baseline", r.trace_id) for r in worst.baseline_runs)
    reference = comparison.references[worst.item_id]
    assert reference.missing is None and reference.answer and reference.tool_calls
    # The input shown is the stored (redacted) one: no raw e-mail address of the dataset.
    inputs = [comparison.user_input(i) or "" for i in actions.items()]
    assert inputs and all("@example.com" not in text for text in inputs)


def test_filters_narrow_by_metric_slice_and_direction(at_story: StoryHome) -> None:
    home = current_home()
    frame = ScoreStore(home.store).read_frame(at_story.defect)
    intent = str(frame["intent"].iloc[0])
    comparison = compare_builds(
        home, at_story.defect, at_story.baseline, metrics=("hallucinated_actions",),
        slice_=("intent", intent), directions=("improved", "unchanged"),
    )  # fmt: skip
    (m,) = comparison.metrics
    assert set(m.groups) == {"improved", "unchanged"}
    assert all(i.slices["intent"] == intent for i in m.items())


def _synthetic_build(build: str, values: np.ndarray, metrics: tuple[str, ...]) -> None:
    """Store ``values`` (metrics x items x runs) as the scores of ``build``, no traces."""
    rows = [
        Score(metric, float(v), "scored", metric, 1, reason="r", trace_id=f"{build}{m}{i}x{r}",
              build=build, item_id=f"i{i}", run_index=r)
        for m, metric in enumerate(metrics)
        for (i, r), v in np.ndenumerate(values[m])
    ]  # fmt: skip
    ScoreStore(current_home().ensure().store).write(build, rows)


@pytest.mark.timeout(300)
def test_a_build_of_10000_runs_compares_in_seconds() -> None:
    rng = np.random.default_rng(3)
    items, runs, metrics = 3334, 3, ("a", "b", "c")
    base = rng.uniform(0.4, 1.0, (len(metrics), items, runs))
    _synthetic_build("base", base, metrics)
    _synthetic_build("cand", np.clip(base + rng.normal(-0.05, 0.1, base.shape), 0, 1), metrics)
    started = time.perf_counter()
    comparison = compare_builds(current_home(), "cand", "base", limit=10)
    elapsed = time.perf_counter() - started
    print(f"compare: {items * runs} runs x {len(metrics)} metrics per build in {elapsed:.2f} s")
    assert [sum(m.totals.values()) for m in comparison.metrics] == [items] * len(metrics)
    assert all(len(m.groups["regressed"]) == 10 for m in comparison.metrics)
