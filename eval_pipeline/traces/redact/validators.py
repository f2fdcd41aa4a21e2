"""Validators of the recognizer catalogue: each checks one matched text and normalises it.

A validator takes the text a recognizer's pattern matched and returns the value its token is
made from (the normalised value: a card's digits, an upper-case IBAN, a lower-case email), or
None when the text is not what it looks like (a card number failing Luhn, an IBAN failing its
mod-97 check, a run of one repeated digit). The catalogue (``recognizers.yaml``) names each
recognizer's validator by its key in ``VALIDATORS``; adding a recognizer with a new check is
adding a function here and its name there.
"""

import re
from collections.abc import Callable

from eval_pipeline.traces.redact import phones

Validator = Callable[[str], str | None]
"""Matched text -> normalised value, or None when the match is rejected."""

_DOUBLING_GAIN = bytes.maketrans(b"0123456789", bytes((10, 11, 12, 13, 14, 6, 7, 8, 9, 10)))
"""ASCII digit d -> what doubling adds to it in Luhn's sum (d, or d - 9 once 2d > 9), plus 10."""
_IBAN_DIGITS = str.maketrans(
    {c: str(int(c, 36)) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}
)
"""IBAN letter -> its number (A=10 ... Z=35, either case), for the mod-97 check."""
_SEPARATORS = str.maketrans("", "", " .-")
_NON_DIGIT = re.compile(r"\D")


def luhn_ok(digits: str) -> bool:
    """True when ``digits`` passes the Luhn checksum (decimal digits of any script)."""
    if digits.isascii() and digits.isdigit():  # the usual case: sums over the bytes
        # Every digit once (a byte is 48 + d, and -48 = 2 mod 10), and what doubling adds to
        # every second one from the right: two builtin sums instead of a loop.
        data = digits.encode()
        return (sum(data) + 2 * len(data) + sum(data[-2::-2].translate(_DOUBLING_GAIN))) % 10 == 0
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48  # other scripts' digits: their code point, as the check always read
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def iban_ok(candidate: str) -> bool:
    """True when ``candidate`` (spaces allowed, either case) passes the IBAN mod-97 check."""
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    return int(rearranged.translate(_IBAN_DIGITS)) % 97 == 1


def card(match: str) -> str | None:
    """A card number's digits when there are 13-19 and they pass Luhn."""
    digits = match.translate(_SEPARATORS)  # a card match is digits and these separators
    return digits if 13 <= len(digits) <= 19 and luhn_ok(digits) else None


def iban(match: str) -> str | None:
    """An IBAN without spaces, upper case, when it passes mod-97."""
    compact = match.replace(" ", "").upper()
    return compact if iban_ok(compact) else None


def email(match: str) -> str:
    """An email address in lower case (one token for every spelling of one address)."""
    return match.lower()


def as_written(match: str) -> str:
    """The match itself (a shape precise enough to need no check: US SSNs)."""
    return match


def phone_digits(match: str) -> str | None:
    """A phone number's digits (``+`` kept) when 7-15 and not one digit repeated."""
    digits = _NON_DIGIT.sub("", match)
    if not 7 <= len(digits) <= 15 or digits.count(digits[0]) == len(digits):
        return None  # too short or long, or one digit repeated (a placeholder, not a number)
    return ("+" if match.startswith("+") else "") + digits


VALIDATORS: dict[str, Validator] = {
    "luhn": card,
    "iban_mod97": iban,
    "email": email,
    "as_written": as_written,
    "phone_digits": phone_digits,
    "national_phone": phones.national_phone,
    "grouped_digits": phones.unchecked_phone,
}
"""Validators by the name the catalogue gives them."""
