r"""Validators: the Luhn and IBAN checks answer as their textbook definitions, on any input.

Contract (``redact.validators``): ``luhn_ok`` and ``iban_ok`` equal the plain definitions
below on any digits (other scripts' digits included, as Python's ``\d`` matches them) and
any IBAN-like text; the normalising validators give one value per spelling.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.redact.validators import (
    VALIDATORS,
    card,
    email,
    iban,
    iban_ok,
    luhn_ok,
    phone_digits,
)

_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


def _luhn_definition(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value = value * 2 - 9 if value * 2 > 9 else value * 2
        total += value
    return total % 10 == 0


def _iban_definition(candidate: str) -> bool:
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    return int("".join(str(int(c, 36)) for c in compact[4:] + compact[:4])) % 97 == 1


@_SETTINGS
@given(st.text(alphabet="0123456789١", min_size=1, max_size=19))
def test_luhn_check_equals_the_definition(digits: str) -> None:
    assert luhn_ok(digits) is _luhn_definition(digits)


@_SETTINGS
@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz0123456789 ٣", min_size=10, max_size=40))
def test_iban_check_equals_the_definition(candidate: str) -> None:
    assert iban_ok(candidate) is _iban_definition(candidate)
    valid = "GB82WEST12345698765432"
    assert iban_ok(valid) and iban_ok(valid.lower()) and not iban_ok(valid[:-1] + "3")


def test_validators_normalise_each_spelling_to_one_value() -> None:
    assert card("4111 1111.1111-1111") == card("4111111111111111") == "4111111111111111"
    assert card("4111 1111 1111 1112") is None
    assert iban("gb82 west 1234 5698 7654 32") == "GB82WEST12345698765432"
    assert email("Ann@Example.COM") == "ann@example.com"
    assert phone_digits("+44 (20) 7946-0958") == "+442079460958"
    assert phone_digits("555 5555") is None  # one digit repeated: a placeholder
    assert set(VALIDATORS) >= {"luhn", "iban_mod97", "email", "phone_digits"}
