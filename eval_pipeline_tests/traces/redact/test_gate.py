"""The linear-time gate: scanning only its hot spans finds exactly what a whole-text scan finds.

Contract (``redact.gate``): each recognizer's candidate pattern is a superset of its exact
pattern, so a text tokenised chunk by chunk equals the same text tokenised whole, for any
text; hostile runs (``%``, digits, ``a@``) have no hot span at all, so the
backtracking patterns never run on them, while personal data placed anywhere in such a run
is still found.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.redact.catalogue import CATALOGUE
from eval_pipeline.traces.redact.gate import MARGIN, Gate
from eval_pipeline.traces.redact.pii import Tokeniser

KEY = b"g" * 32
_PIECES = (
    "ann@example.com",
    "a.b+c@mail.example.co.uk",
    "4111 1111 1111 1111",
    "4111.1111.1111.1111",
    "4111111111111112",
    "GB82 WEST 1234 5698 7654 32",
    "gb82west12345698765432",
    "123-45-6789",
    "+44 20 7946 0958",
    "+14155552671",
    "(415) 555-2671",
    "415 555 2671",
    "07700 900123",
    "01 23 45 67 89",
    "(11) 91234-5678",
    "٤١٥ ٥٥٥ ٢٦٧١",
    "2024-05-15",
    "%40",
    "@",
    "-",
    "+",
    "/",
    " ",
    "\n",
    "é",
)


def _tokeniser(gate: Gate) -> Tokeniser:
    return Tokeniser(CATALOGUE, KEY, gate)


WHOLE = _tokeniser(Gate(CATALOGUE, chunk=10**9))
CHUNKED = _tokeniser(Gate(CATALOGUE, chunk=64))


@settings(
    max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(_PIECES),
            st.text(alphabet="0123456789", min_size=1, max_size=40),
            st.text(alphabet="ab@.%-+ 19", max_size=30),
        ),
        max_size=400,
    )
)
def test_chunked_scan_equals_whole_scan(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert CHUNKED.redact(text) == WHOLE.redact(text)


def test_hostile_runs_have_no_hot_span_and_data_in_them_is_found() -> None:
    gate = Gate(CATALOGUE)
    runs = {
        "percent": "%" * 1_000_000,
        "digits": "0123456789" * 100_000,
        "a_at": "a@" * 500_000,
        "a": "a" * 1_000_000,
    }
    for name, run in runs.items():
        assert gate.hot_spans(run) == {}, name
        planted = run[:500_000] + " ann@example.com, 4111 1111 1111 1111 " + run[500_000:]
        hot = gate.hot_spans(planted)
        assert set(hot) <= {
            "email", "email_unicode", "card", "phone", "national_phone",
            "in_aadhaar/AADHAR (Very Weak)",  # 4111 1111 1111 in the card number
        }, name  # fmt: skip
        assert all(sum(e - s for s, e, _ in spans) <= 2 * gate.chunk for spans in hot.values())
        text, kinds = _tokeniser(gate).redact(planted)
        assert sorted(kinds) == ["CARD", "EMAIL"], name
        assert "ann@example.com" not in text and "4111 1111" not in text


def test_margin_exceeds_the_longest_exact_match() -> None:
    longest_email = "a" * 64 + "@" + ".".join(["b" * 63] * 9) + "." + "c" * 24
    _, kinds = WHOLE.redact(f"x {longest_email} y")
    assert kinds == ("EMAIL",) and len(longest_email) < MARGIN


def test_an_international_number_without_separators_in_a_long_text_is_redacted() -> None:
    # The gate's phone candidate once needed a character other than ``+`` before the first
    # digit, so "+14155552671" in a text longer than one chunk was never scanned: stored raw.
    text = "x " * 5000 + "call +14155552671 now"
    redacted, kinds = _tokeniser(Gate(CATALOGUE)).redact(text)
    assert "14155552671" not in redacted and kinds == ("PHONE",)
    assert redacted == _tokeniser(Gate(CATALOGUE, chunk=len(text) + 1)).redact(text)[0]
