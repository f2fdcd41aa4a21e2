"""Validators of the recognizer catalogue: each checks one matched text and normalises it.

A validator takes the text a recognizer's pattern matched and returns the value its token is
made from (the normalised value: a card's digits, an upper-case IBAN, a lower-case email), or
None when the text is not what it looks like (a card number failing Luhn, an IBAN failing its
mod-97 check, a run of one repeated digit). The catalogue (``recognizers.yaml``) names each
recognizer's validator by its key in ``VALIDATORS``; adding a recognizer with a new check is
adding a function here and its name there.
"""

import ipaddress
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


_VERHOEFF_D = (
    "0123456789", "1234067895", "2340178956", "3401289567", "4012395678",
    "5987604321", "6598710432", "7659821043", "8765932104", "9876543210",
)  # fmt: skip
_VERHOEFF_P = (
    "0123456789", "1576283094", "5803796142", "8916043527",
    "9453126870", "4286573901", "2793806415", "7046913258",
)  # fmt: skip
_ALNUM = re.compile(r"[^0-9A-Za-z]")


def us_ssn(match: str) -> str | None:
    """A US SSN's 9 digits unless Presidio's ``UsSsnRecognizer.invalidate_result`` rejects it.

    Rejected: mixed separators, one digit repeated, a zero group, area 000 or 666, and the
    published sample numbers.
    """
    if len({c for c in match if c in ".- "}) > 1:
        return None
    digits = _NON_DIGIT.sub("", match)
    if len(digits) != 9 or digits.count(digits[0]) == 9:
        return None
    if digits[3:5] == "00" or digits[5:] == "0000" or digits[:3] in ("000", "666"):
        return None
    return None if digits in ("123456789", "987654320", "078051120") else digits


def nhs_mod11(match: str) -> str | None:
    """A UK NHS number's 10 digits when the weighted sum (10..1) is 0 mod 11 (Presidio's)."""
    digits = _NON_DIGIT.sub("", match)
    if len(digits) != 10 or not digits.isascii():
        return None
    total = sum(int(d) * w for d, w in zip(digits, range(10, 0, -1), strict=True))
    return digits if total % 11 == 0 else None


def verhoeff_ok(digits: str) -> bool:
    """True when ``digits`` (ASCII) passes the Verhoeff check (dihedral group D5)."""
    check = 0
    for index, digit in enumerate(reversed(digits)):
        check = int(_VERHOEFF_D[check][int(_VERHOEFF_P[index % 8][int(digit)])])
    return check == 0


def aadhaar(match: str) -> str | None:
    """An Aadhaar number's 12 digits when Presidio's checks hold.

    First digit 2-9, the Verhoeff check, not a palindrome.
    """
    digits = _NON_DIGIT.sub("", match)
    if len(digits) != 12 or not digits.isascii() or digits[0] in "01" or digits == digits[::-1]:
        return None
    return digits if verhoeff_ok(digits) else None


def compact_upper(match: str) -> str:
    """Letters and digits only, upper case (a UK NINO or an Indian PAN, however spaced)."""
    return _ALNUM.sub("", match).upper()


def ip_address(match: str) -> str | None:
    """The address in its standard form when ``ipaddress`` reads it (Presidio's check)."""
    try:
        return str(ipaddress.ip_interface(match) if "/" in match else ipaddress.ip_address(match))
    except ValueError:
        return None


def fr_nir(match: str) -> str | None:
    """A French NIR (INSEE number, 15 characters) whose key is 97 - (number mod 97).

    Not in Presidio: from the public format (sex 1/2 (3, 4, 7, 8 for temporary numbers),
    year, month, department (2A/2B: Corsica, counted as 19/18), commune, order, key).
    """
    compact = _ALNUM.sub("", match).upper()
    if len(compact) != 15 or compact[0] not in "123478":
        return None
    body = compact[:13].replace("2A", "19", 1) if compact[5:7] == "2A" else compact[:13]
    if compact[5:7] == "2B":
        body = compact[:5] + "18" + compact[7:13]
    if not (body.isascii() and body.isdigit() and compact[13:].isdigit()):
        return None
    return compact if 97 - int(body) % 97 == int(compact[13:]) else None


def br_cpf(match: str) -> str | None:
    """A Brazilian CPF's 11 digits when both mod-11 check digits hold (not in Presidio).

    From the public format: digit 10 is (sum of the first 9 weighted 10..2) * 10 mod 11 mod
    10, digit 11 the same over the first 10 weighted 11..2; one digit repeated is rejected.
    """
    digits = _NON_DIGIT.sub("", match)
    if len(digits) != 11 or not digits.isascii() or digits.count(digits[0]) == 11:
        return None
    for size in (9, 10):
        total = sum(int(d) * w for d, w in zip(digits[:size], range(size + 1, 1, -1), strict=True))
        if total * 10 % 11 % 10 != int(digits[size]):
            return None
    return digits


VALIDATORS: dict[str, Validator] = {
    "luhn": card,
    "iban_mod97": iban,
    "email": email,
    "as_written": as_written,
    "phone_digits": phone_digits,
    "national_phone": phones.national_phone,
    "grouped_digits": phones.unchecked_phone,
    "us_ssn": us_ssn,
    "nhs_mod11": nhs_mod11,
    "aadhaar": aadhaar,
    "compact_upper": compact_upper,
    "ip_address": ip_address,
    "fr_nir": fr_nir,
    "br_cpf": br_cpf,
}
"""Validators by the name the catalogue gives them."""
