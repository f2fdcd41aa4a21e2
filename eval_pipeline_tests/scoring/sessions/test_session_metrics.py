"""Session metrics on hand-built conversations (pass and fail cases) and on stored ones."""

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.home import current_home
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline.scoring.sessions.base import score_session
from eval_pipeline.scoring.sessions.knowledge_retention import asks_for, given
from eval_pipeline.scoring.sessions.registry import (
    build_session_scorer,
    session_metric_card,
    session_metric_ids,
)
from eval_pipeline.scoring.sessions.repeated_requests import normalise
from eval_pipeline.traces.sessions.assemble import assemble_sessions
from eval_pipeline.traces.sessions.model import Session
from eval_pipeline.traces.sessions.stored import read_sessions
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.cli.test_sessions_cli import CONVERSATIONS
from eval_pipeline_tests.traces.sessions.conversations import turn_spans

REPEATED = "session.repeated_user_requests"
RETENTION = "session.knowledge_retention"
GOAL = "session.goal_completed"
TURNS = "session.turns_to_resolution"


def _session(*turns: tuple) -> Session:
    """A session of (user text, agent answer[, tool (name, arguments)]) turns."""
    spans = []
    for number, (question, answer, *tool) in enumerate(turns, start=1):
        spans += turn_spans(number, question, answer, tool=tool[0] if tool else None)
    (session,) = assemble_sessions(spans)
    return session


def _score(metric: str, session: Session, item: DatasetItem | None = None, **arguments):
    (row,) = score_session(session, item, [build_session_scorer(metric, **arguments)])
    return row


def test_every_session_metric_has_a_versioned_card():
    assert session_metric_ids() == {REPEATED, RETENTION, GOAL, TURNS}
    for metric in session_metric_ids():
        card = session_metric_card(metric)
        assert (card.layer, card.version, card.judged) == ("session", 1, False)
        assert card.description and card.not_applicable_when


def test_repeated_user_requests_counts_repeats_of_earlier_requests():
    session = _session(
        ("Can you cancel order #W5918442?", "Let me look."),
        ("It is #W5918442, as I said.", "What is your order number?"),
        ("can you cancel order #W5918442??", "I cannot find it."),
        ("Can you cancel my order #W5918442", "Transferring you."),
    )
    row = _score(REPEATED, session)
    assert row.status == ScoreStatus.SCORED and row.value == pytest.approx(2 / 3)
    assert row.evidence["most_asked"] == 3
    assert [(r["turn"], r["repeats_turn"]) for r in row.evidence["repeats"]] == [(3, 1), (4, 1)]
    assert "turn 3 repeats turn 1" in row.reason
    assert row.item_id == "conv-1" and row.evidence["session_id"] == "conv-1"
    assert row.trace_id == session.turns[-1].trace_id
    assert row.evidence["trace_ids"] == [t.trace_id for t in session.turns]


def test_repeated_user_requests_passes_follow_ups_and_short_replies():
    session = _session(
        ("Where is my order #W1?", "It ships tomorrow."),
        ("And can I change the address?", "Yes, which one?"),
        ("yes", "ok"),
        ("yes", "ok"),
    )
    row = _score(REPEATED, session)
    assert (row.status, row.value) == (ScoreStatus.SCORED, 0.0)
    strict = _score(REPEATED, session, min_words=1)
    assert strict.value == pytest.approx(1 / 3)  # "yes" twice, counted when short turns count
    assert strict.scorer_args == {"min_words": 1}


def test_repeated_user_requests_not_applicable_with_one_turn():
    row = _score(REPEATED, _session(("Cancel order #W1 please", "Done.")))
    assert row.status == ScoreStatus.NOT_APPLICABLE and row.value is None


def test_normalised_text_ignores_case_punctuation_and_blanks():
    assert normalise("  Can you CANCEL order #W59, please?? ") == "can you cancel order #w59 please"
    assert normalise("mail: jane.doe@example.com.") == "mail jane.doe@example.com"


def test_knowledge_retention_fails_when_the_agent_asks_again():
    session = _session(
        ("Cancel order #W5918442, my email is jane@example.com", "Sure. Which order?"),
        ("The one I said.", "Could you give me your order number?"),
        ("#W5918442!", "Thanks. And what is your e-mail address?"),
    )
    row = _score(RETENTION, session)
    assert row.status == ScoreStatus.SCORED and row.value == 0.0
    asked = {(a["kind"], a["given_turn"], a["asked_turn"]) for a in row.evidence["asked_again"]}
    assert asked == {("order_id", 1, 2), ("email", 1, 3)}


def test_knowledge_retention_passes_confirmations_and_other_questions():
    session = _session(
        ("My user id is yusuf_rossi_9620, reservation code ZFA04Y", "Which flight?"),
        ("The one to Boston", "Is your reservation ZFA04Y? Please confirm."),
        ("yes", "Done: reservation ZFA04Y is changed."),
    )
    row = _score(RETENTION, session)
    assert (row.status, row.value) == (ScoreStatus.SCORED, 1.0)
    assert row.evidence["given"] == {"user_id": 1, "reservation_id": 1}


def test_knowledge_retention_partial_and_not_applicable():
    half = _session(
        ("Order #W1234567, phone +1 (555) 123-4567", "What is your phone number?"),
    )
    assert _score(RETENTION, half).value == 0.5
    none = _score(RETENTION, _session(("hello", "What is your order number?")))
    assert none.status == ScoreStatus.NOT_APPLICABLE


def test_given_information_kinds_and_redaction_tokens():
    assert given("mail [EMAIL:0123456789abcdef01234567] order #W2378156") == {
        "email": "[EMAIL:0123456789abcdef01234567]",
        "order_id": "W2378156",
    }
    assert given("order #12345678") == {"order_id": "12345678"}  # not a phone number
    assert asks_for("Is your order number #W1? Fine.", "order_id", "#W1") is None
    assert asks_for("Please provide your order ID.", "order_id", "#W1") == (
        "Please provide your order ID."
    )


END_STATE = {
    "actions": [
        {"name": "cancel_pending_order", "arguments": {"order_id": "#W1", "reason": "no longer"}}
    ],
    "write_tools": ["cancel_pending_order"],
}
CANCEL = ("cancel_pending_order", {"order_id": "#W1", "reason": "no longer"})


def test_goal_completed_and_turns_to_resolution_over_turns():
    item = DatasetItem(item_id="task-7", expected_end_state=END_STATE)
    resolved = _session(
        ("Cancel #W1", "Why?", ("get_order", {"order_id": "#W1"})),
        ("No longer needed", "Cancelled.", CANCEL),
        ("Thanks", "Bye"),
    )
    goal, turns = score_session(
        resolved, item, [build_session_scorer(GOAL), build_session_scorer(TURNS)]
    )
    assert (goal.value, turns.value) == (1.0, 0.5)
    assert turns.evidence["turns_to_resolution"] == 2 and goal.item_id == "task-7"
    unresolved = _session(("Cancel #W1", "Why?"), ("No longer needed", "I cannot."))
    goal, turns = score_session(
        unresolved, item, [build_session_scorer(GOAL), build_session_scorer(TURNS)]
    )
    assert (goal.value, turns.value) == (0.0, 0.0)
    assert turns.evidence["turns_to_resolution"] is None
    assert "not performed" in goal.reason


def test_goal_metrics_not_applicable_without_end_state_and_unscored_when_malformed():
    session = _session(("Cancel #W1", "Done", CANCEL))
    for item in (None, DatasetItem(item_id="x")):
        for metric in (GOAL, TURNS):
            assert _score(metric, session, item).status == ScoreStatus.NOT_APPLICABLE
    bad = DatasetItem(item_id="x", expected_end_state="db-hash")
    for metric in (GOAL, TURNS):
        row = _score(metric, session, bad)
        assert row.status == ScoreStatus.UNSCORED and "expected_end_state" in row.reason


def test_a_session_metric_asked_to_score_one_run_says_so():
    session = _session(("q one two", "a"))
    scorer = build_session_scorer(REPEATED)
    row = scorer.score(session.turns[0].run, DatasetItem(item_id="x"))
    assert row.status == ScoreStatus.ERROR and "scores sessions" in row.reason


def test_metrics_on_sessions_ingested_from_otlp():
    ingested = CliRunner().invoke(
        cli, ["ingest", str(CONVERSATIONS), "--build", "b", "--redaction-policy", "keep-tools"]
    )
    assert ingested.exit_code == 0, ingested.output
    returned, cancelled = read_sessions(TraceStore(current_home().store), "b")
    item = DatasetItem(
        item_id="return-keyboard",
        expected_end_state=[
            {
                "name": "return_delivered_order_items",
                "arguments": {"order_id": "#W2378156", "item_ids": ["1151293680"]},
            }
        ],
    )
    scorers = [build_session_scorer(m) for m in (REPEATED, RETENTION, GOAL, TURNS)]
    rows = {r.metric_id: r for r in score_session(returned, item, scorers)}
    assert {m: r.value for m, r in rows.items()} == {
        REPEATED: 0.0,
        RETENTION: 1.0,
        GOAL: 1.0,
        TURNS: 0.5,
    }
    assert rows[RETENTION].evidence["given"] == {"email": 1, "order_id": 1}  # e-mail redacted
    assert all(r.build == "b" and r.item_id == "return-keyboard" for r in rows.values())
    rows = {r.metric_id: r for r in score_session(cancelled, None, scorers)}
    assert rows[REPEATED].value == pytest.approx(2 / 3)
    assert rows[REPEATED].evidence["most_asked"] == 3
    assert rows[RETENTION].value == 0.0
    assert rows[RETENTION].evidence["asked_again"][0]["asked_turn"] == 1
    assert rows[GOAL].status == ScoreStatus.NOT_APPLICABLE
    assert rows[GOAL].item_id == "conv-cancel-9"  # no item: the session is the unit
