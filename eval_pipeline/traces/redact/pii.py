"""Field-level detection of personal data, replaced by stable keyed tokens.

Detectors: email addresses, payment card numbers (Luhn-checked), IBANs (ISO 13616 mod-97
checked), US social security numbers and phone numbers (international ``+`` form, or grouped
digits with separators, so ids and timestamps are not taken for phones). A match becomes
``[KIND:xxxxxxxxxx]`` where the suffix is a keyed hash of the normalised value: the same value
always gives the same token under one key, so equality (argument correctness) still works on
redacted data, while the value cannot be recovered without the key.
"""

import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass

_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"
)
_CARD = re.compile(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_SSN = re.compile(r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])")
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(?\d{1,4}\)?[ .-]?){1,4}\d{2,4}"
    r"|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4})(?![\w])"
)
_DIGIT_RUN = re.compile(r"\d(?:[ ().-]{0,2}\d){6}")
_TOKEN = re.compile(r"\[(?:CARD|IBAN|EMAIL|SSN|PHONE):([0-9a-f]{10})\]")


def holds_token(text: str) -> bool:
    """True when ``text`` holds a token made by ``Tokeniser`` (a value that was redacted)."""
    return "[" in text and _TOKEN.search(text) is not None


def opaque(text: str) -> str:
    """``text`` with each token as its bare key (``[EMAIL:5b71f2aec3]`` -> ``5b71f2aec3``).

    For readers that compare words: the kind names what was hidden, it is not a word of the
    text (the raw address did not say "email" either); the key still matches equal values.
    """
    return _TOKEN.sub(r"\1", text) if "[" in text else text


def luhn_ok(digits: str) -> bool:
    """True when ``digits`` passes the Luhn checksum."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def iban_ok(candidate: str) -> bool:
    """True when ``candidate`` (spaces allowed) passes the IBAN mod-97 check."""
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1


def _card(match: str) -> str | None:
    digits = re.sub(r"\D", "", match)
    return digits if 13 <= len(digits) <= 19 and luhn_ok(digits) else None


def _phone(match: str) -> str | None:
    digits = re.sub(r"\D", "", match)
    return ("+" if match.startswith("+") else "") + digits if 7 <= len(digits) <= 15 else None


@dataclass(frozen=True)
class Detector:
    """A named pattern with an optional validator that also normalises the matched value."""

    kind: str
    pattern: re.Pattern[str]
    check: Callable[[str], str | None]
    anchor: str | None = None
    """A character every match contains, when no match can hold a space: the scan for
    matches then starts after the last space before the first anchor (no earlier position
    can start one), which spares scanning long texts with a single address near the end."""


DETECTORS: dict[str, Detector] = {
    "credit_card": Detector("CARD", _CARD, _card),
    "iban": Detector("IBAN", _IBAN, lambda m: m.replace(" ", "") if iban_ok(m) else None),
    "email": Detector("EMAIL", _EMAIL, lambda m: m.lower(), anchor="@"),
    "ssn": Detector("SSN", _SSN, lambda m: m),
    "phone": Detector("PHONE", _PHONE, _phone),
}
"""Detectors by policy name, in priority order (earlier wins on overlapping matches)."""


class Tokeniser:
    """Replaces detected values in text by stable keyed tokens, counting what it replaced."""

    def __init__(self, detectors: tuple[Detector, ...], key: bytes) -> None:
        self._detectors = detectors
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)
        self._cache: dict[tuple[str, str], str] = {}
        self._texts: dict[str, tuple[str, tuple[str, ...]]] = {}

    def token(self, kind: str, value: str) -> str:
        """The token for one normalised value (same value and key -> same token)."""
        cached = self._cache.get((kind, value))
        if cached is None:
            keyed = self._keyed.copy()  # the key schedule is computed once, in __init__
            keyed.update(f"{kind}:{value}".encode())
            digest = keyed.hexdigest()
            cached = f"[{kind}:{digest[:10]}]"
            self._cache[(kind, value)] = cached
        return cached

    def redact(self, text: str) -> tuple[str, tuple[str, ...]]:
        """``text`` with personal data replaced, and the kinds replaced (one per match)."""
        if "@" not in text and not _DIGIT_RUN.search(text):
            return text, ()
        cached = self._texts.get(text)
        if cached is None:
            if len(self._texts) >= 8192:
                self._texts.clear()
            cached = self._texts[text] = self._redact(text)
        return cached

    def _redact(self, text: str) -> tuple[str, tuple[str, ...]]:
        spans: list[tuple[int, int, str]] = []
        digits = _DIGIT_RUN.search(text) is not None
        for detector in self._detectors:
            if not (digits if detector.kind != "EMAIL" else "@" in text):
                continue
            start = 0
            if detector.anchor is not None:
                start = text.rfind(" ", 0, text.find(detector.anchor)) + 1
            for match in detector.pattern.finditer(text, start):
                start, end = match.span()
                if any(start < e and s < end for s, e, _ in spans):
                    continue
                value = detector.check(match.group())
                if value is not None:
                    spans.append((start, end, self.token(detector.kind, value)))
        if not spans:
            return text, ()
        spans.sort()
        pieces: list[str] = []
        last = 0
        for start, end, token in spans:
            pieces.append(text[last:start])
            pieces.append(token)
            last = end
        pieces.append(text[last:])
        return "".join(pieces), tuple(token[1:].split(":", 1)[0] for _, _, token in spans)
