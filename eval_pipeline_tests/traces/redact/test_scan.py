"""The RE2 fast path finds exactly what the Python patterns find, and redacts exactly as before.

Contract (``redact.scan``): for every precise pattern, ``Pattern.find`` yields the matches of
the Python pattern's ``finditer`` over the whole text, whichever engine it uses (RE2 while
matches are sparse, ``re`` once they are dense, ``re`` alone for text that is not ASCII), and
with or without the gate's spans. ``Tokeniser.redact`` then gives the output of the
implementation before the fast path (``_reference`` below: the Python patterns over the
whole text, detectors in priority order, checks and tokens), on any generated text; the Luhn
and IBAN checks, now computed in C, answer as their previous pure-Python forms did.
"""

import hashlib
import hmac
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.redact import phones, scan
from eval_pipeline.traces.redact.gate import Gate
from eval_pipeline.traces.redact.pii import (
    DETECTORS,
    Detector,
    Tokeniser,
    detectors_for,
    iban_ok,
    luhn_ok,
)

KEY = b"s" * 32
_DETECTORS = detectors_for(DETECTORS)
_PIECES = (
    "ann@example.com",
    "a.b+c@mail.example.co.uk",
    "x@y.zz",
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
    "(415) 555-2671",
    "1-800-555-0199",
    "415 555 2671",
    "07700 900123",
    "01 23 45 67 89",
    "(11) 91234-5678",
    "8 (495) 123-45-67",
    "2024-05-15",
)
_TEXTS = st.lists(
    st.one_of(
        st.sampled_from(_PIECES),
        st.text(alphabet="0123456789", min_size=1, max_size=24),
        st.text(alphabet="ab@._%+-()/ 19Z", max_size=12),
    ),
    max_size=120,
).map("".join)
_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


def _python_matches(detector: Detector, text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in detector.pattern.python.finditer(text)]


@pytest.fixture(params=[(scan.DENSE_AFTER, scan.DENSE_CHARS), (1, 10**6)], ids=["sparse", "dense"])
def density(request: pytest.FixtureRequest) -> Iterator[None]:
    """The default switch to ``re``, or one after the first match (both engines on one text)."""
    saved = scan.DENSE_AFTER, scan.DENSE_CHARS
    scan.DENSE_AFTER, scan.DENSE_CHARS = request.param
    yield
    scan.DENSE_AFTER, scan.DENSE_CHARS = saved


@_SETTINGS
@given(_TEXTS)
def test_exact_forms_find_what_the_python_patterns_find(density: None, text: str) -> None:
    data = text.encode("ascii")
    for detector in _DETECTORS:
        expected = _python_matches(detector, text)
        assert list(detector.pattern.find(text, data, None)) == expected, detector.gate


@_SETTINGS
@given(_TEXTS)
def test_gated_spans_find_what_the_whole_text_holds(density: None, text: str) -> None:
    text = text * 8  # several gate chunks of 64 characters
    hot = Gate(chunk=64).hot_spans(text)
    for detector in _DETECTORS:
        spans = hot.get(detector.gate)
        found = [] if spans is None else list(detector.pattern.find(text, text.encode(), spans))
        assert found == _python_matches(detector, text), detector.gate


def test_text_that_is_not_ascii_is_scanned_by_python_alone() -> None:
    text = "é " + " ".join(_PIECES) * 20
    assert scan.ascii_bytes(text) is None
    for detector in _DETECTORS:
        assert list(detector.pattern.find(text, None, None)) == _python_matches(detector, text)


def _token(kind: str, value: str) -> str:
    digest = hmac.new(KEY, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()
    return f"[{kind}:{digest[:24]}]"


def _reference(text: str) -> tuple[str, tuple[str, ...]]:
    """The redaction of one text as it was before the fast path (fresh tokeniser)."""
    digits = re.search(r"\d(?:[ ().-]{0,2}\d){6}", text) is not None
    lookups = phones.LOOKUPS_PER_TEXT
    checked: dict[tuple[str, str], str | None] = {}
    taken: list[tuple[int, int, str, str]] = []
    for detector in _DETECTORS:
        if not ("@" in text if detector.kind == "EMAIL" else digits):
            continue
        for start, end, match in _python_matches(detector, text):
            if any(s < end and start < e for s, e, _, _ in taken):
                continue
            if detector.unchecked is None:
                value = detector.check(match)
            elif (detector.gate, match) in checked:
                value = checked[(detector.gate, match)]
            elif lookups <= 0:
                value = detector.unchecked(match)
            else:
                lookups -= 1
                value = checked[(detector.gate, match)] = detector.check(match)
            if value is not None:
                taken.append((start, end, _token(detector.kind, value), detector.kind))
    taken.sort()
    out, last = [], 0
    for start, end, token, _ in taken:
        out += [text[last:start], token]
        last = end
    return "".join([*out, text[last:]]), tuple(kind for *_, kind in taken)


@_SETTINGS
@given(_TEXTS)
def test_tokeniser_redacts_as_the_reference_implementation(density: None, text: str) -> None:
    text = f"{text} {text}".replace("%", "")  # values repeat; never base64 nor %-escaped
    for gate in (Gate(), Gate(chunk=64)):
        assert Tokeniser(_DETECTORS, KEY, gate).redact(text) == _reference(text)


def _luhn_reference(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value = value * 2 - 9 if value * 2 > 9 else value * 2
        total += value
    return total % 10 == 0


def _iban_reference(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    return int("".join(str(int(c, 36)) for c in compact[4:] + compact[:4])) % 97 == 1


@_SETTINGS
@given(st.text(alphabet="0123456789١", min_size=1, max_size=19))
def test_luhn_check_equals_the_reference(digits: str) -> None:
    assert luhn_ok(digits) is _luhn_reference(digits)


@_SETTINGS
@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz0123456789 ٣", min_size=10, max_size=40))
def test_iban_check_equals_the_reference(candidate: str) -> None:
    assert iban_ok(candidate) is _iban_reference(candidate)
    valid = "GB82WEST12345698765432"
    assert iban_ok(valid) and iban_ok(valid.lower()) and not iban_ok(valid[:-1] + "3")
