"""Run-level scorers: hallucinated actions, hand-offs, completeness and task success.

``hallucinated_actions`` flags a claimed action (refunded, cancelled, booked, sent, ...) that no
successful tool call performed, with the claim and the missing tool as evidence, and ignores
questions, negations and history. ``handoff_quality`` checks required entities in the hand-off
context and catches one agent redoing or undoing another's write. ``trace_completeness`` mirrors
assembly's verdict. ``task_success`` reads the documented end-state format and is unscored
(with the reason) when the item has none or an unknown one.
"""

import pytest

from eval_pipeline.scoring.action_claims import find_claims
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline.traces.model import Handoff
from eval_pipeline_tests.scoring.builders import call, make_item, make_run

ITEM = make_item("x")


@pytest.mark.parametrize(
    "answer, verbs",
    [
        ("I have refunded $20 to your card.", ["refund"]),
        ("Your booking has been cancelled and I've sent a confirmation email.", ["cancel", "send"]),
        ("We booked the 9am flight for you.", ["book"]),
        ("The password was reset successfully.", ["reset"]),
        ("I could not cancel the order because it already shipped.", []),
        ("Would you like me to cancel the order?", []),
        ("Your order was cancelled last week, according to our records.", []),
        ("I haven't refunded anything yet.", []),
        ("Here is the weather for Paris: sunny, 21C.", []),
    ],
)
def test_claim_detection(answer: str, verbs: list[str]) -> None:
    assert [c.verb for c in find_claims(answer)] == verbs


def test_unsupported_claim_is_flagged_with_evidence() -> None:
    run = make_run(
        [
            call("get_order", {"id": "A1"}),
            call("cancel_order", {"id": "A1"}, error="order already shipped"),
        ],
        answer="Done! Your order has been cancelled.",
    )
    score = build_scorer("hallucinated_actions").score(run, ITEM)
    assert score.value == 0.0
    claim = score.evidence["unsupported"][0]
    assert claim["verb"] == "cancel" and "*cancel*" in claim["missing_tool"]
    assert score.span_ids == (run.final_answer_span_id,)


def test_supported_claims_and_plain_answers_pass() -> None:
    run = make_run(
        [call("cancel_pending_order", {"id": "A1"})], answer="I have cancelled order A1."
    )
    score = build_scorer("hallucinated_actions").score(run, ITEM)
    assert score.value == 1.0 and score.evidence["supported"][0]["tool"] == "cancel_pending_order"
    plain = build_scorer("hallucinated_actions").score(make_run([], answer="Hi!"), ITEM)
    assert plain.status == "not_applicable"
    assert (
        build_scorer("hallucinated_actions").score(make_run([], answer=None), ITEM).status
        == "unscored"
    )


def test_verb_map_is_configurable_and_recorded() -> None:
    verbs = {"escalate": {"words": ["escalated"], "tools": ["*ticket*"]}}
    scorer = build_scorer("hallucinated_actions", verbs=verbs)
    run = make_run([], answer="I have escalated your case.")
    assert scorer.score(run, ITEM).value == 0.0
    rebuilt = build_scorer("hallucinated_actions", **scorer.arguments)  # type: ignore[attr-defined]
    assert rebuilt.score(run, ITEM) == scorer.score(run, ITEM)


def test_handoff_entities_and_conflicts() -> None:
    item = make_item("h", required_entities=("order #W123", "jane@example.com"))
    handoff = Handoff("triage", "refunds", "h1", context="Customer jane@example.com, order #W123")
    partial = Handoff("triage", "billing", "h2", context="order #W123")
    scorer = build_scorer("handoff_quality")
    assert scorer.score(make_run([], handoffs=(handoff,)), item).value == 1.0
    half = scorer.score(make_run([], handoffs=(handoff, partial)), item)
    assert half.value == 0.75 and half.evidence["missing"][0]["missing_entities"] == [
        "jane@example.com"
    ]
    redo = [
        call("issue_refund", {"order": "W123", "amount": 5}, agent="refunds"),
        call("issue_refund", {"order": "W123", "amount": 5}, agent="billing"),
    ]
    undo = [
        call("book_flight", {"reservation": "ABC123"}, agent="booking"),
        call("get_reservation", {"reservation": "ABC123"}, agent="support"),
        call("cancel_flight", {"reservation": "ABC123"}, agent="support"),
    ]
    for calls, kind in ((redo, "redone"), (undo, "undone")):
        score = scorer.score(make_run(calls, handoffs=(handoff,)), item)
        assert score.value == 0.0 and score.evidence["conflicts"][0]["kind"] == kind
    same_agent = [
        call("issue_refund", {"order": "W1"}, agent="a"),
        call("issue_refund", {"order": "W2"}, agent="b"),
    ]
    assert scorer.score(make_run(same_agent, handoffs=(handoff,)), item).value == 1.0
    # The item lists entities a hand-off must carry: a run that never handed off scores 0.
    assert scorer.score(make_run([]), item).value == 0.0


def test_trace_completeness() -> None:
    scorer = build_scorer("trace_completeness")
    assert scorer.score(make_run([]), ITEM).value == 1.0
    broken = scorer.score(make_run([], complete=False, reasons=("missing parent 0a",)), ITEM)
    assert broken.value == 0.0 and broken.reason == "missing parent 0a"


def test_task_success_formats() -> None:
    scorer = build_scorer("task_success")
    state = {
        "actions": [{"name": "cancel_order", "arguments": {"id": "A1", "reason": "late"}}],
        "write_tools": ["cancel_order", "refund"],
    }
    good = make_run(
        [call("get_order", {"id": "A1"}), call("cancel_order", {"id": "A1", "reason": "late"})]
    )
    assert scorer.score(good, make_item("t", expected_end_state=state)).value == 1.0
    failed = make_run([call("cancel_order", {"id": "A1", "reason": "late"}, error="boom")])
    assert scorer.score(failed, make_item("t", expected_end_state=state)).value == 0.0
    stray = make_run([*good.tool_calls, call("refund", {"id": "A1"})])
    score = scorer.score(stray, make_item("t", expected_end_state=state))
    assert score.value == 0.0 and score.evidence["unexpected_writes"][0]["tool"] == "refund"
    bare_list = make_item("t", expected_end_state=state["actions"])
    assert scorer.score(good, bare_list).value == 1.0
    assert scorer.score(good, make_item("t")).status == "not_applicable"
    unknown = scorer.score(good, make_item("t", expected_end_state="db-hash-0af3"))
    assert unknown.status == "unscored" and "expected_end_state" in unknown.reason


def test_task_success_reads_the_importers_write_actions_key() -> None:
    state = {
        "write_actions": [
            {
                "name": "return_delivered_order_items",
                "arguments": {"order_id": "#W1", "item_ids": ["8538875209"]},
            }
        ]
    }
    item = make_item("t", expected_end_state=state)
    done = make_run(
        [call("return_delivered_order_items", {"order_id": "#W1", "item_ids": ["8538875209"]})]
    )
    wrong_items = make_run(
        [call("return_delivered_order_items", {"order_id": "#W1", "item_ids": ["8538875210"]})]
    )
    scorer = build_scorer("task_success")
    assert scorer.score(done, item).value == 1.0
    assert scorer.score(wrong_items, item).value == 0.0
