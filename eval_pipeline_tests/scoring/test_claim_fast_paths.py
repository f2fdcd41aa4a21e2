"""The claim finder's short cuts give what the scans they replace give.

Sentences of a one-sentence text are not scanned; the claim words are found by one pattern
instead of a Python step per token; the frame search before a participle after ``and`` is
skipped without ``ahead``; the claims of a recent (text, verb map) are remembered. Each is
checked against the general code on generated texts.
"""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.scoring import action_claims
from eval_pipeline.scoring.action_claims import (
    _SENTENCE,
    DEFAULT_ACTION_VERBS,
    _compiled,
    _find_claims,
    _sentences,
    find_claims,
)
from eval_pipeline.scoring.claim_frames import _BEFORE, TOKEN, _may_frame

_PIECES = st.sampled_from(
    [
        *(" ", ".", "!", "?", "\n", "'", "-", "$", "#", "s", "\u212a", "\u00e9"),
        *("ab", "order", "orders", "sent", "and", "ahead", "gone", "I", "we've"),
        *("cancelled", "refund", "x-sent", "'sent", "-order"),
    ]
)
_TEXTS = st.lists(st.one_of(_PIECES, st.text(max_size=3)), max_size=10).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=_TEXTS)
def test_sentences_are_the_pattern_matches(text: str) -> None:
    assert _sentences(text) == [m.group(0) for m in _SENTENCE.finditer(text)]


@settings(max_examples=500, deadline=None)
@given(text=_TEXTS)
def test_the_claim_word_pattern_finds_the_claim_word_tokens(text: str) -> None:
    word_to_verb, noun_to_verb, frames = _compiled(DEFAULT_ACTION_VERBS)
    assert frames is not None and frames.candidates is not None
    lowered = text.lower()
    words = set(word_to_verb) | set(noun_to_verb) | {f"{n}s" for n in noun_to_verb}
    expected = [(m.group(0), m.span()) for m in TOKEN.finditer(lowered) if m.group(0) in words]
    found = [(m.group("w"), m.span("w")) for m in frames.candidates.finditer(lowered)]
    assert found == expected


@settings(max_examples=500, deadline=None)
@given(text=_TEXTS)
def test_the_frame_search_is_skipped_only_where_it_cannot_match(text: str) -> None:
    window = text[-80:]
    last = window[-16:].rsplit(None, 1)[-1].lower() if window.strip() else ""
    assert _may_frame(window, last) == (_BEFORE.search(window) is not None)
    for tail in (" and ", " ahead and ", " AND  ", " went Ahead and "):
        assert _may_frame(window + tail, "and") == bool(_BEFORE.search(window + tail))


def test_a_claim_word_pattern_is_made_only_of_token_words() -> None:
    frames = _compiled({"x": {"words": ["re-sent", "o'k"], "tools": ["*"]}})[2]
    assert frames is not None and frames.candidates is not None
    assert re.fullmatch(frames.candidates, "re-sent")
    assert _compiled({"x": {"words": ["two words"], "tools": ["*"]}})[2].candidates is None  # type: ignore[union-attr]


@settings(max_examples=300, deadline=None)
@given(text=_TEXTS)
def test_remembered_claims_are_the_claims_found_afresh(text: str) -> None:
    first = find_claims(text)
    first.append(first[0] if first else None)  # type: ignore[arg-type]  # a caller's change
    again = find_claims(text)
    assert again == _find_claims(text, DEFAULT_ACTION_VERBS)
    other = {"refund": {"words": ["sent"], "tools": ["*x*"]}}
    assert find_claims(text, other) == _find_claims(text, other)


def test_the_claim_memo_stays_small() -> None:
    for n in range(3 * action_claims._MEMO_SIZE):
        find_claims(f"I have cancelled order {n}.")
    assert len(action_claims._memo) <= action_claims._MEMO_SIZE
    assert find_claims("I have cancelled order 0.")[0].verb == "cancel"
