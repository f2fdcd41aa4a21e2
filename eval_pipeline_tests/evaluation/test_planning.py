"""The sensor's planner: request each registration once, oldest first, and move the cursor.

Contract: builds registered after the cursor are requested in registration order; the cursor
becomes the newest registration time; a tick with nothing new keeps the cursor; a
re-registration (new time) is requested again.
"""

from datetime import UTC, datetime, timedelta

from eval_pipeline.builds import BuildRecord
from eval_pipeline.evaluation.planning import plan_build_requests

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def record(build: str, minutes: int) -> BuildRecord:
    return BuildRecord(build, "support-agent", None, None, T0 + timedelta(minutes=minutes), False)


def test_first_tick_requests_everything_in_registration_order() -> None:
    plan = plan_build_requests([record("b", 2), record("a", 1)], None)
    assert [b for b, _ in plan.builds] == ["a", "b"]
    assert plan.cursor == (T0 + timedelta(minutes=2)).isoformat()


def test_a_tick_with_nothing_new_keeps_the_cursor() -> None:
    first = plan_build_requests([record("a", 1)], None)
    second = plan_build_requests([record("a", 1)], first.cursor)
    assert second.builds == () and second.cursor == first.cursor


def test_reregistration_is_requested_again() -> None:
    first = plan_build_requests([record("a", 1)], None)
    again = plan_build_requests([record("a", 5)], first.cursor)
    assert [b for b, _ in again.builds] == ["a"]


def test_builds_evaluated_out_of_band_are_not_requested() -> None:
    done = BuildRecord("a", "support-agent", None, None, T0, True)
    plan = plan_build_requests([done, record("b", 1)], None)
    assert [b for b, _ in plan.builds] == ["b"]
