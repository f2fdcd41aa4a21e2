"""``step_efficiency`` against trajectories with optional steps.

Contract: the calls an acceptable trajectory allows are its required steps plus the optional
steps the run took; efficiency is that over the calls executed. An all-optional trajectory
(no call is required) is not a zero: a run taking only its optional steps scores 1, a run
that needs no call and makes none scores 1, and calls outside the trajectory lower it.
"""

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.scoring.builders import call, make_run

SCORER = build_scorer("step_efficiency")
ALL_OPTIONAL = DatasetItem(
    item_id="i",
    expected_tool_calls=(
        ExpectedToolCall("get_order", optional=True),
        ExpectedToolCall("get_policy", optional=True),
    ),
)


def test_an_all_optional_trajectory_is_not_a_zero() -> None:
    taken = SCORER.score(make_run([call("get_order"), call("get_policy")]), ALL_OPTIONAL)
    assert (taken.status, taken.value) == ("scored", 1.0)
    none = SCORER.score(make_run([]), ALL_OPTIONAL)
    assert (none.status, none.value) == ("scored", 1.0)
    wasted = SCORER.score(
        make_run([call("get_order"), call("search"), call("search")]), ALL_OPTIONAL
    )
    assert wasted.value is not None and abs(wasted.value - 1 / 3) < 1e-9


def test_required_steps_still_set_the_shortest_path() -> None:
    item = DatasetItem(
        item_id="i",
        expected_tool_calls=(
            ExpectedToolCall("get_order", optional=True),
            ExpectedToolCall("refund"),
        ),
    )
    assert SCORER.score(make_run([call("refund")]), item).value == 1.0
    assert SCORER.score(make_run([call("get_order"), call("refund")]), item).value == 1.0
    assert SCORER.score(make_run([call("refund"), call("refund")]), item).value == 0.5
    assert SCORER.score(make_run([]), item).status == "unscored"
