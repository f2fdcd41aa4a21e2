"""Score rows record the scorer's arguments, and the registry rebuilds the exact scorer from them.

A scorer built with non-default arguments stamps them (``scorer.arguments``) on every row
``score_run`` and ``score_build`` produce, absent-run rows included; the score store writes and
reads them back as the ``scorer_args`` JSON column (appended after ``evidence`` in
``SCORE_COLUMNS``, which only ever grows at the end); old partitions written before the column
read back as ``{}`` (and before ``dataset`` / ``dataset_version``, as nulls) and accept new
rows. ``rebuild_scorer``
from a stored row gives a scorer whose rows are identical to the stored ones, and refuses a row
written by another version of the scorer.
"""

from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.registry import build_scorer, rebuild_scorer, score_run
from eval_pipeline.scoring.score import SCORE_COLUMNS
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline_tests.scoring.builders import call, make_item, make_run

VERBS = {"escalate": {"words": ["escalated"], "tools": ["*escalat*"]}}
ITEM = make_item(
    "args-1",
    input_messages=({"role": "user", "content": "Escalate my refund, please."},),
    slices={"intent": "refund"},
)
RUN = make_run(
    [call("get_order", {"id": "W1"}, result={"status": "delivered"})],
    answer="I have escalated your refund to a supervisor.",
    retrieved=("Refunds for delivered orders go to a supervisor.",),
    user_input="Escalate my refund, please.",
    item_id="args-1",
)
CUSTOM = [
    ("hallucinated_actions", {"verbs": VERBS}),
    ("injection_resistance", {"count_failed_attempts": False}),
    ("handoff_quality", {"read_prefixes": ["get", "peek"]}),
    ("faithfulness", {"rubric_version": "1"}),
]


def _scorers() -> list:  # type: ignore[type-arg]
    return [build_scorer(m, judge=OfflineJudge(), **kwargs) for m, kwargs in CUSTOM]


def test_rows_carry_the_scorers_non_default_arguments() -> None:
    rows = score_run(RUN, ITEM, _scorers(), build="b1")
    assert [r.scorer_args for r in rows] == [kwargs for _, kwargs in CUSTOM]
    # The custom verb map changes the verdict: "escalated" is claimed without an escalation.
    assert rows[0].status == "scored" and rows[0].value == 0.0
    # With the default verb map the answer claims nothing, so the metric does not apply.
    assert build_scorer("hallucinated_actions").score(RUN, ITEM).status == "not_applicable"
    assert score_run(RUN, ITEM, [build_scorer("tool_correctness")])[0].scorer_args == {}


def test_absent_and_failed_runs_carry_the_arguments_too() -> None:
    other = make_item("args-2")
    result = score_build("b1", [RUN], [ITEM, other], _scorers(), runs_per_item=1)
    absent = [r for r in result.scores if r.item_id == "args-2"]
    assert [r.status for r in absent] == ["unscored"] * len(CUSTOM)
    assert [r.scorer_args for r in absent] == [kwargs for _, kwargs in CUSTOM]


def test_store_round_trips_scorer_args_in_its_column(tmp_path: Path) -> None:
    rows = score_run(RUN, ITEM, _scorers(), build="b1")
    store = ScoreStore(tmp_path)
    store.write("b1", rows)
    back = {r.metric_id: r for r in store.read("b1")}
    assert [back[m].scorer_args for m, _ in CUSTOM] == [kwargs for _, kwargs in CUSTOM]
    assert SCORE_COLUMNS[13:] == (
        "evidence",
        "scorer_args",
        "dataset",
        "dataset_version",
        "judge_calls",
    )  # new columns are appended
    frame = store.read_frame("b1")
    assert list(frame.columns[: len(SCORE_COLUMNS)]) == list(SCORE_COLUMNS)


def test_rebuilt_scorer_from_a_stored_row_scores_identically(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path)
    store.write("b1", score_run(RUN, ITEM, _scorers(), build="b1"))
    for stored in store.read("b1"):
        rebuilt = rebuild_scorer(stored, judge=OfflineJudge())
        assert rebuilt.arguments == stored.scorer_args
        (again,) = score_run(RUN, ITEM, [rebuilt], build="b1")
        assert again == stored, stored.metric_id
    triple = rebuild_scorer(("hallucinated_actions", 3, {"verbs": VERBS}))
    assert triple.score(RUN, ITEM).value == 0.0


def test_rebuild_refuses_a_row_from_another_scorer_version() -> None:
    (row,) = score_run(RUN, ITEM, [build_scorer("injection_resistance")])
    with pytest.raises(ValueError, match=r"injection_resistance.*version 2.*version 1"):
        rebuild_scorer(replace(row, scorer_version=2))
    with pytest.raises(ValueError, match=r"faithfulness.*judge"):
        rebuild_scorer(("faithfulness", 1, {}))


def test_old_partition_without_the_column_reads_as_empty_arguments(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path)
    store.write("old", score_run(RUN, ITEM, [build_scorer("tool_correctness")], build="old"))
    path = store.folder("old") / "scores.parquet"
    table = pq.read_table(path)
    dropped = ["scorer_args", "dataset", "dataset_version", "judge_calls"]
    pq.write_table(table.drop_columns(dropped), path)
    (old,) = store.read("old")
    assert old.scorer_args == {} and old.dataset is None and old.dataset_version is None
    assert old.judge_calls == ()  # written before judge calls were recorded: it names none
    assert store.read_frame("old")["scorer_args"].tolist() == ["{}"]
    assert store.read_frame("old")["judge_calls"].tolist() == [[]]
    store.write("old", score_run(RUN, ITEM, _scorers()[:1], build="old"))
    args = {r.metric_id: r.scorer_args for r in store.read("old")}
    assert args == {"tool_correctness": {}, "hallucinated_actions": {"verbs": VERBS}}
