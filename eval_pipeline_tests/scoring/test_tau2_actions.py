"""Action matching agrees with tau2-bench's own recorded per-action checks on real runs.

The fixture holds the 120 real simulations published with tau2-bench (gpt-4.1 and a fine-tuned
gpt-4.1, airline and retail): the tasks' expected actions, the tool calls made and the
benchmark's recorded ``action_match`` per expected action. Our matcher must agree with every
recorded check. ``task_success`` (all expected actions performed successfully, no other write)
must agree with the benchmark's database check wherever the expected actions are the only
writes the task needs.
"""

import json
from typing import Any

import pytest

from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.package_data import package_path
from eval_pipeline.scoring.end_state import parse_end_state, performed_by
from eval_pipeline.scoring.registry import build_scorer, score_run, select_metric_ids
from eval_pipeline_tests.scoring.builders import call, make_item, make_run

FIXTURE = package_path("benchmarks", "tau2_checks", "tau2_action_checks.json")
SIMULATIONS: list[dict[str, Any]] = json.loads(FIXTURE.read_text())
READ_PREFIXES = ("get_", "find_", "search_", "list_", "calculate", "think", "transfer_to")


def _run(sim: dict[str, Any]):  # type: ignore[no-untyped-def]
    return make_run(
        [
            call(c["name"], c["arguments"], error="tool error" if c["error"] else None)
            for c in sim["tool_calls"]
        ]
    )


def _end_state(sim: dict[str, Any], *, writes_only: bool) -> dict[str, Any]:
    actions = sim["expected_actions"]
    if writes_only:
        actions = [a for a in actions if not a["name"].startswith(READ_PREFIXES)]
    return {"actions": actions}


def test_fixture_is_the_published_runs() -> None:
    assert len(SIMULATIONS) == 120
    assert sum(len(s["action_checks"]) for s in SIMULATIONS) > 400


@pytest.mark.parametrize(
    "sim", SIMULATIONS, ids=[f"{s['source'][:-5]}-{s['task_id']}" for s in SIMULATIONS]
)
def test_action_matching_agrees_with_recorded_checks(sim: dict[str, Any]) -> None:
    run = _run(sim)
    state = parse_end_state(_end_state(sim, writes_only=False))
    recorded = {c["action_id"]: c["action_match"] for c in sim["action_checks"]}
    for action in state.actions:
        ours = performed_by(action, run.tool_calls, require_success=False) is not None
        assert ours == recorded[action.action_id], action


def test_task_success_tracks_the_database_check() -> None:
    scorer = build_scorer("task_success")
    agree = total = 0
    for sim in SIMULATIONS:
        if sim["db_match"] is None:
            continue
        item = make_item(sim["task_id"], expected_end_state=_end_state(sim, writes_only=True))
        score = scorer.score(_run(sim), item)
        assert score.status == "scored"
        total += 1
        agree += (score.value == 1.0) == bool(sim["db_match"])
    # Action-based success is a proxy for the database hash: it cannot see writes' side
    # effects; require strong agreement, not identity.
    assert total >= 100
    assert agree / total >= 0.85, (agree, total)


def test_every_deterministic_scorer_handles_real_runs() -> None:
    scorers = [build_scorer(m) for m in select_metric_ids(needs_judge=False)]
    for sim in SIMULATIONS[:30]:
        expected = tuple(
            ExpectedToolCall(a["name"], {k: [v] for k, v in a["arguments"].items()})
            for a in sim["expected_actions"]
        )
        item = make_item(
            sim["task_id"],
            expected_tool_calls=expected,
            expected_end_state=_end_state(sim, writes_only=True),
        )
        rows = score_run(_run(sim), item, scorers, build="tau2")
        assert all(r.status != "error" for r in rows), [r.reason for r in rows]
