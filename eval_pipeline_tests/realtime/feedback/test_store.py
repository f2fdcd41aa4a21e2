"""The feedback store: a thumbs-down opens one review item; labels need an item; ids pseudonymous.

A rating is stored with its trace; a negative one (``down``, or a score under 0.5) opens the
trace's review item once, an ``up`` never does, and the sampler reads the negative traces.
A label needs a review item and records who and when; the scale is enforced at the edge; user
and session ids are stored as the home's keyed tokens, the same for the same id, never raw.
"""

import re
from datetime import UTC, datetime

import pytest

from eval_pipeline.home import current_home
from eval_pipeline.realtime.feedback.pseudonyms import SESSION, USER, pseudonym
from eval_pipeline.realtime.feedback.rating import (
    Feedback,
    FeedbackError,
    parse_rating,
    parse_trace_id,
)
from eval_pipeline.realtime.feedback.store import FeedbackStore, NotInReview

T1, T2, T3 = "a1" * 16, "b2" * 16, "c3" * 16


def _rate(store: FeedbackStore, trace_id: str, rating: object, note: str | None = None) -> bool:
    moment = datetime(2026, 12, 1, 12, tzinfo=UTC)
    return store.record(Feedback(trace_id, parse_rating(rating), moment, note=note))


def test_a_thumbs_down_opens_one_review_item_and_an_up_none() -> None:
    store = FeedbackStore(current_home().ensure().state_url)
    assert _rate(store, T1, "down", "wrong refund") is True
    assert _rate(store, T1, 0.2, "still wrong") is False  # negative again: no second item
    assert _rate(store, T2, "up") is False
    assert _rate(store, T3, "0.9") is False
    assert store.thumbs_down_trace_ids() == {T1}
    (item,) = store.reviews("open")
    assert item.trace_id == T1 and item.negative_feedback == 2
    assert item.feedback_notes == ("wrong refund", "still wrong")
    assert [f.rating.label for f in store.feedback_for(T1)] == ["down", "0.2"]


def test_a_label_records_who_and_when_and_needs_a_review_item() -> None:
    store = FeedbackStore(current_home().ensure().state_url)
    _rate(store, T1, "down")
    with pytest.raises(NotInReview, match=f"trace {T2}: not in review"):
        store.label(T2, "defect", reviewer="ana")
    with pytest.raises(FeedbackError, match="verdict: 'bug'"):
        store.label(T1, "bug", reviewer="ana")
    labelled = store.label(T1, "defect", reviewer="ana", note="refund to the wrong card")
    assert labelled.status == "labelled" and labelled.reviewer == "ana"
    assert labelled.labelled_at is not None and labelled.note == "refund to the wrong card"
    assert store.reviews("open") == [] and len(store.reviews("labelled")) == 1
    _rate(store, T1, "down")  # a later thumbs-down does not reopen a labelled item
    assert store.review(T1).status == "labelled"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("sideways", "rating: 'sideways' is not up, down"),
        (1.5, "outside the scale"),
        ("-0.1", "outside the scale"),
        (True, "is not up, down"),
        (float("nan"), "is not up, down"),
    ],
)
def test_a_rating_off_the_scale_is_refused_naming_the_field(value: object, message: str) -> None:
    with pytest.raises(FeedbackError, match=message):
        parse_rating(value)


def test_trace_ids_are_32_hex_digits() -> None:
    assert parse_trace_id(T1.upper()) == T1
    for bad in ("xyz", "a1" * 15, "0" * 32, 12):
        with pytest.raises(FeedbackError, match="trace_id"):
            parse_trace_id(bad)


def test_ids_become_stable_keyed_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    token = pseudonym(USER, "user-42@example.com")
    assert re.fullmatch(r"\[USER:[0-9a-f]{24}\]", token) and "user-42" not in token
    assert pseudonym(USER, "user-42@example.com") == token
    assert pseudonym(SESSION, "user-42@example.com") != token
    monkeypatch.setenv("EVAL_PIPELINE_REDACTION_KEY", "another-key-for-another-home")
    assert pseudonym(USER, "user-42@example.com") != token
