r"""Folding: the text the recognizers read, and the map back to the text as written.

Contract (``redact.folding``): percent-encoding (repeated), ``\u`` escapes, HTML character
references, NFKC, zero-width and bidi characters, Unicode spaces and hyphens, e-mail
obfuscations and words glued to 8 digits are read as a reader reads them; every character of
the folded text maps to the span of the written text it came from, in order; clean ASCII text
is not folded.
"""

from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.redact.folding import fold, needs_folding


def _read(text: str) -> str:
    folded = fold(text)
    return text if folded is None else folded.text


def test_each_spelling_is_read_as_written_plainly() -> None:
    assert _read("bob%40example.com") == "bob@example.com"
    assert _read("bob%2540example.com") == "bob@example.com"
    assert _read("bob\\u0040example.com") == "bob@example.com"
    assert _read("bob&#64;example.com &amp; co") == "bob@example.com & co"
    assert _read("bob [at] example [dot] com") == "bob@example.com"
    assert _read("bob at example dot com") == "bob@example.com"
    assert _read("look at example.com") == "look at example.com"
    assert _read("４１１１\u00a01111\u202f1111\u20091111") == "4111 1111 1111 1111"
    assert _read("07700\u2011900\u2212123") == "07700-900-123"
    assert _read("41\u200b11\u200e1111") == "41111111"
    assert _read("card4111111111111111exp") == "card 4111111111111111 exp"
    assert _read("v12.40.567 GB82WEST12345698765432 3f786850e387550fdab8") == (
        "v12.40.567 GB82WEST12345698765432 3f786850e387550fdab8"
    )


def test_matches_map_back_to_what_was_written() -> None:
    text = "to=bob%2540example.com&x=1"
    folded = fold(text)
    assert folded is not None and folded.text == "to=bob@example.com&x=1"
    start = folded.text.index("bob")
    start, end = folded.original(start, start + len("bob@example.com"))
    assert text[start:end] == "bob%2540example.com"
    text = "pay 4111\u200b1111\u00a01111 1111 now"
    folded = fold(text)
    assert folded is not None
    assert folded.text == "pay 41111111 1111 1111 now"
    start, end = folded.original(4, folded.text.index(" now"))
    assert text[start:end] == "4111\u200b1111\u00a01111 1111"


def test_clean_ascii_is_not_folded() -> None:
    for text in ("The agent answered question 12 in full.", "v1.2.3 on 2024-05-15", "a" * 300):
        assert not needs_folding(text, text.encode() if len(text) >= 256 else None)
        assert fold(text) is None


_ALPHABET = st.sampled_from(
    ["a", "Z", "7", " ", "@", "%", "%40", "%2540", "%E9", "\\u0040", "&#64;", "&amp;", "\u00a0",
     "\u200b", "\u2011", "４", "é", "ﬁ", " [at] ", " dot ", "card", "12345678", "-", "."]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_ALPHABET, max_size=60).map("".join))
def test_every_read_character_maps_into_the_written_text_in_order(text: str) -> None:
    folded = fold(text)
    if folded is None:
        return
    spans = [folded.original(i, i + 1) for i in range(len(folded.text))]
    assert all(0 <= lo <= hi <= len(text) for lo, hi in spans)
    assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in pairwise(spans))
    if folded.text:
        assert folded.original(0, len(folded.text))[1] <= len(text)
