"""The C scanner (``_scanner.c``) redacts exactly as the Python scanner, its reference.

Per pattern: ``_scanner.find`` yields what the Python pattern's ``finditer`` yields, both with
the hand-written matchers and with the backtracking one, on texts over small alphabets where
the patterns' edges are dense. Per text: ``Tokeniser`` with the C scan gives what it gives
with the Python scan (``native=False``), under every policy's detectors, with the tokeniser's
caches and phone look-up budget carried across texts. Texts mix personal-data fragments,
percent- and backslash-u escapes, base64, non-ASCII letters, and decimal digits of other
scripts put into every kind of personal data (digits to Python's ``re``, and to the C scan,
which has Python check the matches holding them). The seeded 100,000-text run is marked ``slow``.
"""

import base64
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.redact import _scanner, phones, pii
from eval_pipeline.traces.redact.pii import DETECTORS, Tokeniser, detectors_for
from eval_pipeline_tests.traces.redact import redact_corpus

KEY = b"native-scanner-test-key"
_PATTERNS = (pii._CARD, pii._IBAN, pii._EMAIL, pii._SSN, pii._PHONE, phones.GROUPED)
"""The Python pattern of each C detector, by its index (``_patterns.h``: CARD = 0)."""
_SCRIPTS = tuple(
    "".join(chr(zero + value) for value in range(10))
    for zero in (0x660, 0x6F0, 0x966, 0x9E6, 0xFF10, 0x1D7CE, 0x1D7F6)
)
"""Decimal digits 0-9 of other scripts: Arabic-Indic, Persian, Devanagari, Bengali, fullwidth,
mathematical bold and monospace (astral: a 4-byte str)."""
_OTHER_DIGITS = "".join(_SCRIPTS)


def _localised(text: str, rng: random.Random) -> str:
    """``text`` with some ASCII digits written in other scripts (each its own value)."""
    scripts = rng.sample(_SCRIPTS, rng.randint(1, 2))
    share = rng.choice((0.05, 0.3, 1.0))
    return "".join(
        rng.choice(scripts)[int(c)] if "0" <= c <= "9" and rng.random() < share else c for c in text
    )


_POLICIES = (tuple(DETECTORS), ("email", "phone"), ("credit_card", "ssn"), ("iban",), ("phone",))
_PIECES = (
    "ann@example.com",
    "a.b+c@mail.example.co.uk",
    "x@y.zz",
    "user1%40example.com",
    "user2\\u0040example.com",
    "4111 1111 1111 1111",
    "4111.1111.1111.1111",
    "4111-1111-1111-1111",
    "4111111111111111",
    "GB82 WEST 1234 5698 7654 32",
    "gb82west12345698765432",
    "123-45-6789",
    "-123-45-6789-",
    "+44 20 7946 0958",
    "+1 (212) 555-0123",
    "+14155552671",
    "(415) 555-2671",
    "1-800-555-0199",
    "415 555 2671",
    "07700 900123",
    "01 23 45 67 89",
    "(11) 91234-5678",
    "8 (495) 123-45-67",
    "2024-05-15",
    "12345.67",
    "é",
    "٣",
    "１",
    "\u00b2",
    "_",
    "%4",
    "\\u12",
)
_EDGY = "0123456789 .-()+@%_aZ"
_TEXTS = st.lists(
    st.one_of(
        st.sampled_from(_PIECES),
        st.builds(_localised, st.sampled_from(_PIECES), st.randoms(use_true_random=False)),
        st.text(alphabet="0123456789" + _OTHER_DIGITS[::7], min_size=1, max_size=24),
        st.text(alphabet="0123456789", min_size=1, max_size=24),
        st.text(alphabet=_EDGY, max_size=16),
        st.text(
            st.characters(max_codepoint=0xD7FF) | st.characters(min_codepoint=0xE000), max_size=6
        ),
    ),
    max_size=60,
).map("".join)
_SETTINGS = settings(
    max_examples=400, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


def _python_finds(index: int, text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in _PATTERNS[index].finditer(text)]


@_SETTINGS
@given(
    st.sampled_from(
        (
            "0123456789 -",
            "01 .-()+",
            "+01 (.)-_a",
            "a.@-%_Z0",
            "aG0 b1é",
            "01٣ -",
            "0١ .-()+४",
            "+0１ (.)-_a",
            "aG0٣ b1\U0001d7cf",
            "1٢३４৫\U0001d7d3 -.",
        )
    ),
    st.data(),
)
def test_each_matcher_finds_what_finditer_finds(alphabet: str, data: st.DataObject) -> None:
    text = data.draw(st.text(alphabet=alphabet, max_size=300))
    for index in range(len(_PATTERNS)):
        expected = _python_finds(index, text)
        assert _scanner.find(text, index) == expected, index
        assert _scanner.find(text, index, True) == expected, index


def _both(names: tuple[str, ...]) -> tuple[Tokeniser, Tokeniser]:
    detectors = detectors_for(names)
    return Tokeniser(detectors, KEY), Tokeniser(detectors, KEY, native=False)


@_SETTINGS
@given(_TEXTS)
def test_c_scan_redacts_as_the_python_scan(text: str) -> None:
    for names in _POLICIES:
        native, python = _both(names)
        assert native._native is not None
        for variant in (text, text * 3, base64.b64encode(text.encode()).decode()):
            assert native.redact(variant) == python.redact(variant), names


@_SETTINGS
@given(st.lists(_TEXTS, min_size=1, max_size=8))
def test_c_scan_carries_caches_across_texts_as_the_python_scan(texts: list[str]) -> None:
    native, python = _both(tuple(DETECTORS))
    for text in texts:
        assert native.redact(text) == python.redact(text)


def test_long_dense_texts_and_the_phone_budget() -> None:
    # Past the 16 look-ups of a text, grouped candidates are tokenised unchecked (in C).
    text = " ".join(
        f"{i:04d}.{i % 97:03d} (11) 9{i:04d}-{i:04d} 01 23 45 {i % 100:02d} 67" for i in range(400)
    )
    native, python = _both(tuple(DETECTORS))
    for variant in (text, text * 30):  # over a gate chunk: Python runs its gate
        assert native.redact(variant) == python.redact(variant)


def test_other_decimal_digits_are_left_to_re_without_a_checker() -> None:
    scanner = _scanner.Scanner(KEY)
    assert scanner.redact("card ٣ 4111 1111 1111 1111", 63, lambda _: None, {}, 16) is None
    # With one, a match holding such digits is handed to it; the others are tokenised in C.
    text = "card ٣ 4111 1111 1111 1111, 4111 1111 1111 1111"
    found = scanner.redact(text, 63, lambda _: None, {}, 16, lambda i, m: f"<{i}:{m}>")
    assert found is not None and found[1] == ("CARD", "CARD")
    assert found[0].startswith("card <0:٣ 4111 1111 1111 1111>, [CARD:")


def test_the_checks_memo_stays_bounded_on_the_c_path() -> None:
    native, python = _both(tuple(DETECTORS))
    native._memo["card"].update((str(i), None) for i in range(65536))
    text = "card ٤111 1111 1111 1111"
    assert native.redact(text) == python.redact(text)
    assert len(native._memo["card"]) == 1


@pytest.mark.parametrize("script", _SCRIPTS)
def test_every_kind_with_other_digits_redacts_as_the_python_scan(script: str) -> None:
    native, python = _both(tuple(DETECTORS))
    rng = random.Random(script)
    found = 0
    for piece in _PIECES:
        whole = "".join(script[int(c)] if "0" <= c <= "9" else c for c in piece)
        for variant in (
            whole,
            piece[:-1] + whole[-1],
            whole[:2] + piece[2:],
            whole[:4] + piece[4:],
        ):
            for text in (variant, f"see {variant}, é", f"{variant} {_localised(piece, rng)}"):
                result = native.redact(text)
                assert result == python.redact(text), repr(text)
                found += len(result[1])
    assert found > 40  # each kind is matched in other scripts, not only left alone


def _equal_on(seed: int, count: int) -> None:
    rng = random.Random(seed)
    tokenisers = [_both(names) for names in _POLICIES]
    for index in range(count):
        if rng.random() < 0.5:
            text = redact_corpus.text(rng)
            if rng.random() < 0.3:
                text = _localised(text, rng)
        else:
            alphabet = rng.choice(
                (_EDGY, "0123456789 -", "01 .-()+", "a.@-%_Z0é", "0١2३4５ .-()+", _EDGY + "٣７")
            )
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 120)))
        native, python = tokenisers[index % len(tokenisers)]
        assert native.redact(text) == python.redact(text), repr(text)


def test_seeded_texts_redact_as_the_python_scan() -> None:
    _equal_on(14, 2_000)


@pytest.mark.slow
def test_100000_seeded_texts_redact_as_the_python_scan() -> None:
    _equal_on(1414, 100_000)


@_SETTINGS
@given(st.text(alphabet="%\\u0aF9gG=+/Az é", max_size=40))
def test_escape_and_base64_tests_answer_as_their_patterns(text: str) -> None:
    assert _scanner.has_escape(text) is (pii._ESCAPED.search(text) is not None)
    assert _scanner.base64_form(text) is (pii._BASE64.fullmatch(text) is not None)


_ESCAPES = st.lists(
    st.one_of(
        st.sampled_from(("%40", "%C3%A9", "%C3", "%A9", "%E2%82", "%ff", "%4", "%%", "%zz", "\\")),
        st.sampled_from(("\\u0040", "\\u00e9", "\\ud83d", "\\u12", "\\U0041", "\\\\u0041")),
        st.text(alphabet="%\\u0aF9@. é中", max_size=8),
        st.text(
            st.characters(max_codepoint=0xD7FF) | st.characters(min_codepoint=0xE000), max_size=4
        ),
    ),
    max_size=30,
).map("".join)


@_SETTINGS
@given(_ESCAPES)
def test_unescaping_in_c_equals_the_python_form(text: str) -> None:
    assert _scanner.unescaped(text) == pii.python_unescaped(text)
