"""Every expected session gets a row per session metric, scored or saying why not.

Contract (``evaluation.sessions_stage.score_sessions``): a conversation run of the item is
scored as a whole (keyed by item and run index); an expected run with no session is
``unscored`` ("no session recorded"), a run the runner recorded as failed (a conversation
that broke off) is ``error`` with the failure, a session without an end marker that is not yet
idle for the timeout is ``unscored`` ("session not ended"); per-session latency is the sum
over its turns.
"""

from dataclasses import replace

from eval_pipeline.datasets.conversation import ConversationScript, ScriptedReply
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.evaluation.sessions_stage import score_sessions
from eval_pipeline.runners.failure import failure_reason
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.scoring.sessions.registry import build_session_scorer
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.sessions.end import SESSION_END

AGENTS = "eval_pipeline_tests.runners.conversation_agents"
SCRIPT = ConversationScript(
    goal="cancel",
    user_turns=("please cancel order #W1234567 now",),
    replies=(ScriptedReply("do you confirm", "yes please go ahead"),),
)
ITEM = DatasetItem(
    item_id="ok",
    input_messages=({"role": "user", "content": "hello, my order is #W1234567"},),
    conversation=SCRIPT,
)
BROKEN = replace(ITEM, item_id="broken")


def _scores(runs: list, runs_per_item: int = 2) -> dict:
    scorers = [build_session_scorer("session.repeated_user_requests")]
    result = score_sessions(
        "b",
        runs,
        [ITEM, BROKEN],
        scorers,
        runs_per_item=runs_per_item,
        idle_timeout_s=600,
        failure=lambda run: failure_reason(run.spans),
    )
    return {(s.item_id, s.run_index): s for s in result.scores}, result.run_metrics


def test_scored_missing_and_failed_sessions() -> None:
    good = PythonEntryPointRunner(f"{AGENTS}:echo").run_items([ITEM], build="b")
    bad = PythonEntryPointRunner(f"{AGENTS}:no_root_on_turn_two").run_items([BROKEN], build="b")
    spans = [s for o in (*good.outcomes, *bad.outcomes) for s in o.spans]
    rows, metrics = _scores(assemble_runs(spans))
    assert rows[("ok", 0)].status == "scored" and rows[("ok", 0)].value == 0.0
    assert len(rows[("ok", 0)].evidence["trace_ids"]) == 3
    assert rows[("ok", 1)].status == "unscored"
    assert rows[("ok", 1)].reason == "no session recorded for this item and run"
    assert rows[("broken", 0)].status == "error"
    assert rows[("broken", 0)].reason == (
        "run failed: turn 2: none of the spans is an invoke_agent root"
    )
    assert ("ok", 0) in metrics and metrics[("ok", 0)]["latency_s"] >= 0


def test_a_session_without_its_end_is_not_scored_yet() -> None:
    good = PythonEntryPointRunner(f"{AGENTS}:echo").run_items([ITEM], build="b")
    spans = [
        replace(s, attributes={k: v for k, v in s.attributes.items() if k != SESSION_END})
        for s in good.outcomes[0].spans
    ]
    rows, _ = _scores(assemble_runs(spans), runs_per_item=1)
    assert rows[("ok", 0)].status == "unscored"
    assert rows[("ok", 0)].reason.startswith("session not ended: no end marker")
