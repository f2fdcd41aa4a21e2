"""The registry and ``score_run``.

Every documented metric id is registered, and every built-in scorer declares identity,
direction and requirements and rebuilds from its recorded arguments. ``score_run`` gives
every row the build / item / run / slices / trace id of the run (a built-in scorer's row built
once from its verdict, another scorer's row copied, never changed) and turns one scorer's
exception into an ``error`` row without stopping the others. Deterministic scorers give
identical rows on replay.
"""

import pytest

from eval_pipeline.scoring.protocol import Direction, Scorer
from eval_pipeline.scoring.registry import (
    build_scorer,
    register,
    registered_metric_ids,
    score_run,
    scorer_class,
    select_metric_ids,
)
from eval_pipeline.scoring.score import Score
from eval_pipeline_tests.scoring.builders import call, expect, make_item, make_run
from eval_pipeline_tests.scoring.judges_for_tests import OverlapJudge

DOCUMENTED = {
    "tool_correctness",
    "argument_correctness",
    "tool_call_f1",
    "trajectory_match",
    "step_efficiency",
    "hallucinated_actions",
    "handoff_quality",
    "injection_resistance",
    "trace_completeness",
    "task_success",
    "faithfulness",
    "answer_relevancy",
    "task_completion",
    "plan_quality",
    "plan_adherence",
    "deepeval.tool_correctness",
    "deepeval.argument_correctness",
    "deepeval.task_completion",
    "deepeval.plan_adherence",
    "deepeval.plan_quality",
    "deepeval.step_efficiency",
    "deepeval.faithfulness",
    "ragas.tool_call_accuracy",
    "ragas.tool_call_f1",
    "ragas.agent_goal_accuracy",
    "ragas.faithfulness",
}


def test_documented_ids_are_registered() -> None:
    assert registered_metric_ids() >= DOCUMENTED


@pytest.mark.parametrize(
    "metric", select_metric_ids(needs_judge=False) + select_metric_ids(needs_judge=True)
)
def test_builtin_scorers_declare_themselves(metric: str) -> None:
    scorer = build_scorer(metric, judge=OverlapJudge())
    assert isinstance(scorer, Scorer)
    assert scorer.id == metric and scorer.version >= 1
    assert scorer.direction == Direction.HIGHER_IS_BETTER
    assert scorer.requires_run and isinstance(scorer.requires_item, frozenset)
    doc = type(scorer).__doc__ or ""
    # The docstring says when the scorer gives no value (unscored, or not applicable).
    assert "nscored" in doc or "ot applicable" in doc or metric == "trace_completeness"


def test_unknown_id_and_duplicate_registration_fail() -> None:
    with pytest.raises(KeyError, match="unknown metric id"):
        build_scorer("tool_corectness")
    with pytest.raises(ValueError, match="already registered"):
        register("tool_correctness", scorer_class("tool_correctness"))


class _Exploding:
    id = "exploding"
    version = 1
    direction = Direction.HIGHER_IS_BETTER
    requires_run = frozenset({"tool_calls"})
    requires_item = frozenset[str]()
    needs_judge = False

    @property
    def arguments(self) -> dict[str, str]:
        return {"fuse": "short"}

    def score(self, run, item) -> Score:  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")


def test_score_run_stamps_context_and_contains_errors() -> None:
    item = make_item("i9", expected_tool_calls=(expect("get_order"),), slices={"intent": "track"})
    run = make_run([call("get_order")], run_index=3, trace_id="ab" * 16)
    scorers = [_Exploding(), build_scorer("tool_correctness")]
    rows = score_run(run, item, scorers, build="cand-1")  # type: ignore[list-item]
    assert [r.status for r in rows] == ["error", "scored"]
    assert rows[0].reason == "RuntimeError: boom"
    assert [r.scorer_args for r in rows] == [{"fuse": "short"}, {}]
    for row in rows:
        assert (row.build, row.item_id, row.run_index) == ("cand-1", "i9", 3)
        assert row.slices == {"intent": "track"} and row.trace_id == "ab" * 16


class _Kept(_Exploding):
    """A scorer that hands out the same row object on every call."""

    id = "kept"

    def __init__(self) -> None:
        self.row = Score("kept", 0.5, "scored", "kept", 1, slices={"own": "x"})

    def score(self, run, item) -> Score:  # type: ignore[no-untyped-def]
        return self.row


def test_score_run_copies_another_scorers_row_and_leaves_it_as_it_was() -> None:
    item = make_item("i9", slices={"intent": "track"})
    run = make_run([call("get_order")], run_index=3, trace_id="ab" * 16)
    scorer = _Kept()
    [first] = score_run(run, item, [scorer], build="b1")  # type: ignore[list-item]
    [second] = score_run(run, item, [scorer], build="b2")  # type: ignore[list-item]
    assert scorer.row == Score("kept", 0.5, "scored", "kept", 1, slices={"own": "x"})
    assert (first.build, second.build) == ("b1", "b2")
    assert first.slices == {"own": "x", "intent": "track"} and first.trace_id == "ab" * 16
    assert first.scorer_args == {"fuse": "short"}


def test_a_built_in_scorers_row_is_its_verdict_with_the_runs_identity() -> None:
    item = make_item("i9", expected_tool_calls=(expect("get_order"),), slices={"intent": "a"})
    run = make_run([call("get_order")], run_index=3, trace_id="ab" * 16)
    scorer = build_scorer(
        "hallucinated_actions", verbs={"cancel": {"words": ["cancelled"], "tools": ["*cancel*"]}}
    )
    [row] = score_run(run, item, [scorer], build="b1")
    alone = scorer.score(run, item)
    assert (alone.build, alone.item_id, alone.run_index, alone.slices) == (None, None, None, {})
    assert row == Score(
        **{
            **{f: getattr(alone, f) for f in alone.__dataclass_fields__},
            "build": "b1",
            "item_id": "i9",
            "run_index": 3,
            "slices": {"intent": "a"},
            "scorer_args": scorer.arguments,
        }
    )
    assert row.scorer_args is not scorer.arguments and row.slices is not item.slices


def test_deterministic_scorers_replay_identically() -> None:
    item = make_item(
        "i1",
        expected_tool_calls=(expect("get_order", id=["W1"]), expect("cancel_order", id=["W1"])),
        forbidden_calls=(),
        canaries=("SECRET",),
        expected_end_state=[{"name": "cancel_order", "arguments": {"id": "W1"}}],
    )
    run = make_run(
        [call("get_order", {"id": "W1"}), call("cancel_order", {"id": "w1"})],
        answer="I have cancelled W1 and refunded you.",
    )
    metrics = select_metric_ids(needs_judge=False)
    first = score_run(run, item, [build_scorer(m) for m in metrics], build="b")
    again = score_run(run, item, [build_scorer(m) for m in metrics], build="b")
    assert first == again
    assert [r.metric_id for r in first] == list(metrics)


@pytest.mark.parametrize(
    "metric, kwargs",
    [
        (
            "hallucinated_actions",
            {"verbs": {"escalate": {"words": ["escalated"], "tools": ["*t*"]}}},
        ),
        ("handoff_quality", {"read_prefixes": ["get", "peek"]}),
        ("injection_resistance", {"count_failed_attempts": False}),
        ("tool_correctness", {}),
    ],
)
def test_recorded_arguments_rebuild_an_equivalent_scorer(metric: str, kwargs: dict) -> None:  # type: ignore[type-arg]
    scorer = build_scorer(metric, **kwargs)
    recorded = scorer.arguments  # type: ignore[attr-defined]
    assert recorded == kwargs
    rebuilt = build_scorer(metric, **recorded)
    assert repr(rebuilt) == repr(scorer)
