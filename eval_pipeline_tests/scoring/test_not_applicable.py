"""``not_applicable`` (docs/DESIGN.md section 4): declared by the scorer, no value, never missing.

A metric that does not apply to a run says so instead of inventing a value or calling the run
unscorable: a hand-off metric on a run that needed no hand-off and made none, an
action-claim metric on an answer that claims nothing, a faithfulness metric on a run that
retrieved nothing and whose item needs nothing retrieved. The summary counts these apart from
the missing ones.
"""

import pytest

from eval_pipeline.scoring.aggregate import summarise
from eval_pipeline.scoring.registry import build_scorer, select_metric_ids
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.model import Handoff
from eval_pipeline_tests.scoring.builders import call, expect, make_item, make_run
from eval_pipeline_tests.scoring.judges_for_tests import OverlapJudge


def test_a_not_applicable_score_has_no_value_and_is_not_missing() -> None:
    row = Score("handoff_quality", None, ScoreStatus.NOT_APPLICABLE, "handoff_quality", 2)
    assert not row.is_missing
    with pytest.raises(ValueError, match="carries no value"):
        Score("handoff_quality", 1.0, ScoreStatus.NOT_APPLICABLE, "handoff_quality", 2)


def test_handoff_quality_does_not_apply_where_no_hand_off_was_expected_or_made() -> None:
    scorer = build_scorer("handoff_quality")
    plain = scorer.score(make_run([call("get_order", {"id": "W1"})]), make_item("lookup"))
    assert plain.status == ScoreStatus.NOT_APPLICABLE and plain.value is None
    assert "no hand-off expected" in plain.reason


@pytest.mark.parametrize(
    "item",
    [
        make_item("entities", required_entities=("#W123",)),
        make_item("transfer", expected_tool_calls=(expect("transfer_to_agent"),)),
    ],
)
def test_a_hand_off_expected_but_not_made_scores_zero(item: object) -> None:
    score = build_scorer("handoff_quality").score(make_run([]), item)  # type: ignore[arg-type]
    assert score.status == ScoreStatus.SCORED and score.value == 0.0
    assert "expected a hand-off" in score.reason


def test_a_hand_off_made_is_scored_as_before() -> None:
    item = make_item("h", required_entities=("#W123",))
    handoff = Handoff("triage", "refunds", "h1", context="order #W123")
    assert build_scorer("handoff_quality").score(make_run([], handoffs=(handoff,)), item).value == 1


def test_hallucinated_actions_does_not_apply_to_an_answer_that_claims_nothing() -> None:
    scorer = build_scorer("hallucinated_actions")
    quiet = scorer.score(make_run([], answer="Hello! How can I help?"), make_item())
    assert quiet.status == ScoreStatus.NOT_APPLICABLE and "no action claimed" in quiet.reason
    claimed = scorer.score(make_run([], answer="I have refunded your order."), make_item())
    assert claimed.status == ScoreStatus.SCORED and claimed.value == 0.0
    assert scorer.score(make_run([], answer=None), make_item()).status == ScoreStatus.UNSCORED


def test_faithfulness_does_not_apply_without_retrieval_where_none_is_needed() -> None:
    judge = OverlapJudge()
    scorer = build_scorer("faithfulness", judge=judge)
    chat = make_item("chat", input_messages=({"role": "user", "content": "hi"},))
    score = scorer.score(make_run([], answer="Hello there."), chat)
    assert score.status == ScoreStatus.NOT_APPLICABLE and not judge.requests
    assert score.judge_fingerprint == judge.fingerprint.digest
    needs = make_item("lookup", expected_tool_calls=(expect("get_order"),))
    assert scorer.score(make_run([], answer="Shipped."), needs).status == ScoreStatus.UNSCORED


def test_the_summary_counts_not_applicable_apart_from_missing() -> None:
    def row(status: str, value: float | None, item: str) -> Score:
        return Score("m", value, status, "m", 1, item_id=item, run_index=0)

    summary = summarise(
        [
            row(ScoreStatus.SCORED, 1.0, "a"),
            row(ScoreStatus.SCORED, 0.0, "b"),
            row(ScoreStatus.NOT_APPLICABLE, None, "c"),
            row(ScoreStatus.UNSCORED, None, "d"),
        ]
    )["m"]
    assert (summary.mean, summary.n, summary.unscored, summary.not_applicable) == (0.5, 2, 1, 1)
    assert summary.to_json()["not_applicable"] == 1


def test_a_production_regression_case_is_scored_or_not_applicable_never_missing() -> None:
    # A triaged production trace with no source item: no reference calls, no forbidden calls,
    # no end state, only the triage note as an assertion.
    case = make_item(
        "regression-1",
        input_messages=({"role": "user", "content": "Cancel my order W1"},),
        assertions=("must confirm before cancelling",),
    )
    run = make_run(
        [call("get_order", {"id": "W1"}, result={"status": "pending"})],
        answer="Here is your order W1: it is pending.",
    )
    statuses = {}
    for metric in select_metric_ids(needs_judge=False):
        row = build_scorer(metric).score(run, case)
        statuses[metric] = (row.status, row.reason)
    missing = {m: s for m, s in statuses.items() if s[0] in (ScoreStatus.UNSCORED, "error")}
    assert not missing, missing
    for metric in ("tool_correctness", "trajectory_match", "injection_resistance"):
        assert statuses[metric][0] == ScoreStatus.NOT_APPLICABLE, statuses[metric]
