"""Trajectory scorers: order only where constrained, alternatives, optional steps, forbidden calls.

``trajectory_match`` compares as sets except for the item's ordering constraints, scores the
best acceptable trajectory, ignores skipped optional steps, and drops to 0 on a forbidden call.
``step_efficiency`` compares against the shortest acceptable trajectory. ``tool_correctness``
and ``tool_call_f1`` do not apply (never 0, never missing) when the item has no expected calls.
"""

from eval_pipeline.datasets.item import ForbiddenCall, OrderingConstraint
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.scoring.builders import call, expect, make_item, make_run

REFUND = make_item(
    "refund",
    expected_tool_calls=(
        expect("check_order", order_id=["A1"]),
        expect("lookup_policy"),
        expect("issue_refund", order_id=["A1"], amount=[10.0]),
        expect("send_receipt", optional=True),
    ),
    alternative_trajectories=(
        (expect("check_order", order_id=["A1"]), expect("issue_store_credit", order_id=["A1"])),
    ),
    ordering=(OrderingConstraint("check_order", "issue_refund"),),
    forbidden_calls=(ForbiddenCall("delete_order"),),
)


def _value(metric: str, calls: list, item=REFUND) -> float | None:  # type: ignore[no-untyped-def]
    return build_scorer(metric).score(make_run(calls), item).value


def test_unconstrained_steps_compare_as_a_set() -> None:
    in_order = [
        call("check_order", {"order_id": "A1"}),
        call("lookup_policy"),
        call("issue_refund", {"order_id": "A1", "amount": 10}),
    ]
    swapped = [in_order[1], in_order[0], in_order[2]]
    assert _value("trajectory_match", in_order) == 1.0
    assert _value("trajectory_match", swapped) == 1.0


def test_ordering_constraint_is_enforced() -> None:
    wrong = [
        call("issue_refund", {"order_id": "A1", "amount": 10}),
        call("check_order", {"order_id": "A1"}),
        call("lookup_policy"),
    ]
    score = build_scorer("trajectory_match").score(make_run(wrong), REFUND)
    assert score.value == 0.0
    assert score.evidence["ordering_violations"][0]["span_id"] == wrong[0].span_id
    assert wrong[0].span_id in score.span_ids


def test_best_alternative_wins_and_optional_steps_are_free() -> None:
    alternative = [
        call("check_order", {"order_id": "A1"}),
        call("issue_store_credit", {"order_id": "A1"}),
    ]
    score = build_scorer("trajectory_match").score(make_run(alternative), REFUND)
    assert score.value == 1.0 and score.evidence["trajectory"] == 1
    with_optional = [
        call("check_order", {"order_id": "A1"}),
        call("lookup_policy"),
        call("issue_refund", {"order_id": "A1", "amount": 10}),
        call("send_receipt"),
    ]
    assert _value("trajectory_match", with_optional) == 1.0


def test_extra_and_missing_calls_lower_the_match() -> None:
    partial = [call("check_order", {"order_id": "A1"}), call("lookup_policy"), call("get_weather")]
    value = _value("trajectory_match", partial)
    assert value is not None and 0.0 < value < 1.0


def test_forbidden_call_zeroes_the_trajectory() -> None:
    calls = [
        call("check_order", {"order_id": "A1"}),
        call("lookup_policy"),
        call("issue_refund", {"order_id": "A1", "amount": 10}),
        call("delete_order", {"order_id": "A1"}),
    ]
    score = build_scorer("trajectory_match").score(make_run(calls), REFUND)
    assert score.value == 0.0 and score.span_ids == (calls[3].span_id,)


def test_step_efficiency_uses_the_shortest_trajectory() -> None:
    calls = [call("check_order", {"order_id": "A1"})] * 2 + [
        call("lookup_policy"),
        call("issue_store_credit"),
    ]
    assert _value("step_efficiency", calls) == 0.5
    assert _value("step_efficiency", calls[:1]) == 1.0
    assert build_scorer("step_efficiency").score(make_run([]), REFUND).status == "unscored"


def test_tool_correctness_and_f1() -> None:
    calls = [
        call("check_order", {"order_id": "A1"}),
        call("issue_refund", {"order_id": "B2", "amount": 10}),
    ]
    correctness = build_scorer("tool_correctness").score(make_run(calls), REFUND)
    assert correctness.value == 2 / 3 and correctness.evidence["missing_tools"] == ["lookup_policy"]
    assert _value("argument_correctness", calls) == 0.5
    f1 = build_scorer("tool_call_f1").score(make_run(calls), REFUND)
    assert f1.value is not None and 0.0 < f1.value < 1.0
    empty = make_item("none")
    for metric in ("tool_correctness", "tool_call_f1", "trajectory_match", "argument_correctness"):
        assert build_scorer(metric).score(make_run(calls), empty).status == "not_applicable"
