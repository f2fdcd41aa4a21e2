"""The build registry: registration, re-registration, baseline pins, judge fingerprints.

Contract: a registered build is pending until the sensor requests it; re-registering makes it
pending again; a suite has at most one baseline pin and re-pinning replaces it; the rescoring
planner returns exactly the baselines scored by another judge, sorted and de-duplicated.
"""

import pytest

from eval_pipeline.builds import BuildRegistry, stale_baselines
from eval_pipeline.home import current_home


def registry() -> BuildRegistry:
    return BuildRegistry(current_home().ensure().state_url)


def test_register_then_request_then_reregister() -> None:
    builds = registry()
    builds.register("b1", suite="support-agent", runner="replay:x")
    assert [r.build for r in builds.pending()] == ["b1"]
    builds.mark_requested(["b1"])
    assert builds.pending() == []
    builds.register("b1", suite="support-agent")
    record = builds.get("b1")
    assert record is not None and record.runner is None and not record.requested


def test_bad_build_ids_are_rejected_with_the_id() -> None:
    with pytest.raises(ValueError, match="a/b"):
        registry().register("a/b", suite="s")


def test_baseline_pin_is_replaced_by_a_repin() -> None:
    builds = registry()
    builds.pin_baseline("support-agent", "b1")
    builds.pin_baseline("support-agent", "b2")
    assert builds.baseline_for("support-agent") == "b2"
    assert builds.baselines() == {"support-agent": "b2"}


def test_stale_baselines_are_exactly_those_scored_by_another_judge() -> None:
    baselines = {"suite-a": "b1", "suite-b": "b2", "suite-c": "b3", "suite-d": "b1"}
    scored = {"b1": "old", "b2": "new", "b4": "old"}
    every = dict.fromkeys(baselines, "new")
    assert stale_baselines(baselines, scored, every) == ["b1"]
    assert stale_baselines(baselines, scored, dict.fromkeys(baselines, "old")) == ["b2"]
    assert stale_baselines({}, scored, every) == []
    # Only a suite whose own judge changed makes its baseline stale.
    assert stale_baselines(baselines, scored, {"suite-a": "new", "suite-b": "new"}) == ["b1"]
    assert stale_baselines(baselines, scored, {"suite-b": "old"}) == ["b2"]
