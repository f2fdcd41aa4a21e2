"""Field-level detection of personal data, replaced by stable keyed tokens.

Detectors: email addresses, payment card numbers (Luhn-checked), IBANs (ISO 13616 mod-97
checked, either case), US social security numbers and phone numbers (international ``+``
form, NANP ``415 555 2671`` / ``415-555-2671`` / ``(415) 555-2671``, national numbers with a
trunk ``0`` such as ``07700 900123``), in the text as written and in its percent-decoded and
backslash-u-unescaped form. Hand-written patterns rather than ``phonenumbers``: its matcher costs
milliseconds per text, far from the linear-time budget of a scanner run on every stored string.

A match becomes ``[KIND:<24 hex>]`` where the suffix is 96 bits of the HMAC-SHA256 of the
normalised value under the home's secret key (``keys``): the same value always gives the same
token under one key, so equality (argument correctness) still works on redacted data, while the
value cannot be recovered, nor guessed by trying values, without the key. Token format version
2 (version 1: 10 hex digits under a public default key; stored version-1 tokens do not match
version-2 ones).

"""

import base64
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from eval_pipeline.traces.redact import phones, scan
from eval_pipeline.traces.redact.gate import Gate
from eval_pipeline.traces.redact.scan import Found, Spans

Taken = tuple[int, int, str, str]
"""A replaced match: start, end, its token and the token's kind."""
_UNSEEN = object()

TOKEN_HEX = 24
"""Hex digits of a token: 96 bits of the keyed hash (version 2; version 1 had 10, 40 bits)."""

# Every pattern is linear in its input: quantifiers are bounded or cannot overlap, so no start
# position costs more than a fixed amount of work. A match can start only where a run of its
# characters starts (the lookbehinds), so a long run is walked once, not once per position
# (the email pattern once left ``%`` out of its lookbehind: quadratic on runs of ``%``).
_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}"
    r"\.[A-Za-z]{2,24}(?![A-Za-z0-9-])"
)
_CARD = re.compile(r"(?<![\w-])\d(?:[ .-]?\d){12,18}(?![\w-])")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}(?![A-Za-z0-9])")
_SSN = re.compile(r"(?<!\d)(?<!\d-)\d{3}-\d{2}-\d{4}(?!\d)(?!-\d)")
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(?\d{1,4}\)?[ .-]?){1,4}\d{2,4}"
    r"|(?:1[ .-])?(?:\(\d{3}\)[ .-]?|\d{3}[ .-])\d{3}[ .-]\d{4}"
    r"|0\d{2,4}[ .-]?\d{3,4}[ .-]?\d{3,6})(?![\w])"
)
_W = "A-Za-z0-9_"  # ``\\w`` on ASCII text, for the RE2 forms (``scan``)
_EMAIL_RE2 = (
    rf"(?:^|[^{_W}.%+-])([A-Za-z0-9._%+-]{{1,64}}@[A-Za-z0-9-]{{1,63}}"
    r"(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24})(?:$|[^A-Za-z0-9-])"
)
_CARD_RE2 = rf"(?:^|[^{_W}-])([0-9](?:[ .-]?[0-9]){{12,18}})(?:$|[^{_W}-])"
_IBAN_RE2 = r"(?:^|[^A-Za-z0-9])([A-Za-z]{2}[0-9]{2}(?: ?[A-Za-z0-9]){11,30})(?:$|[^A-Za-z0-9])"
_SSN_RE2 = r"(?:^|[^0-9-]|^-|[^0-9]-)([0-9]{3}-[0-9]{2}-[0-9]{4})(?:$|[^0-9-]|-$|-[^0-9])"
_PHONE_RE2 = (
    rf"(?:^|[^{_W}+])(\+[0-9]{{1,3}}[ .-]?(?:\(?[0-9]{{1,4}}\)?[ .-]?){{1,4}}[0-9]{{2,4}}"
    r"|(?:1[ .-])?(?:\([0-9]{3}\)[ .-]?|[0-9]{3}[ .-])[0-9]{3}[ .-][0-9]{4}"
    rf"|0[0-9]{{2,4}}[ .-]?[0-9]{{3,4}}[ .-]?[0-9]{{3,6}})(?:$|[^{_W}])"
)
_DIGIT_RUN = re.compile(r"\d(?:[ ().-]{0,2}\d){6}")
_DIGIT_RUN_RE2 = scan.compile_re2(r"[0-9](?:[ ().-]{0,2}[0-9]){6}")
_ESCAPED = re.compile(r"%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_NON_DIGIT = re.compile(r"\D")


def _escape_found_re(text: str) -> bool:
    return _ESCAPED.search(text) is not None


def _base64_form_re(text: str) -> bool:
    return _BASE64.fullmatch(text) is not None


_ESCAPE_FOUND = _escape_found_re
_BASE64_FORM = _base64_form_re
_OTHER_DIGIT = re.compile(r"[^\D0-9]")  # digits the gate's ASCII automaton does not see
_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})")
_TOKEN = re.compile(rf"\[(?:CARD|IBAN|EMAIL|SSN|PHONE):([0-9a-f]{{{TOKEN_HEX}}})\]")


def unescaped(text: str) -> str:
    """``text`` with percent-encoding and backslash-u escapes decoded (what a reader sees)."""
    if _has_backslash_u(text):
        text = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    return unquote(text, errors="replace") if "%" in text else text


def holds_token(text: str) -> bool:
    """True when ``text`` holds a token made by ``Tokeniser`` (a value that was redacted)."""
    return "[" in text and _TOKEN.search(text) is not None


def opaque(text: str) -> str:
    """``text`` with each token as its bare key (``[EMAIL:5b71f2aec3]`` -> ``5b71f2aec3``).

    For readers that compare words: the kind names what was hidden, it is not a word of the
    text (the raw address did not say "email" either); the key still matches equal values.
    """
    return _TOKEN.sub(r"\1", text) if "[" in text else text


_DOUBLED = bytes.maketrans(b"0123456789", bytes((0, 2, 4, 6, 8, 1, 3, 5, 7, 9)))
"""ASCII digit -> the digit sum of its double (Luhn's every second digit from the right)."""
_IBAN_DIGITS = str.maketrans(
    {c: str(int(c, 36)) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}
)
"""IBAN letter -> its number (A=10 ... Z=35, either case), for the mod-97 check."""
_SEPARATORS = str.maketrans("", "", " .-")


def luhn_ok(digits: str) -> bool:
    """True when ``digits`` passes the Luhn checksum."""
    if digits.isascii() and digits.isdigit():  # in C: sums over bytes, doubling by table
        data = digits.encode()
        kept = data[-1::-2]
        return (sum(kept) - 48 * len(kept) + sum(data[-2::-2].translate(_DOUBLED))) % 10 == 0
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
    return int(rearranged.translate(_IBAN_DIGITS)) % 97 == 1


def _iban(match: str) -> str | None:
    compact = match.replace(" ", "").upper()
    return compact if iban_ok(compact) else None


def _card(match: str) -> str | None:
    digits = match.translate(_SEPARATORS)  # a card match is digits and these separators
    return digits if 13 <= len(digits) <= 19 and luhn_ok(digits) else None


def _phone(match: str) -> str | None:
    digits = _NON_DIGIT.sub("", match)
    if not 7 <= len(digits) <= 15 or digits.count(digits[0]) == len(digits):
        return None  # too short or long, or one digit repeated (a placeholder, not a number)
    return ("+" if match.startswith("+") else "") + digits


@dataclass(frozen=True)
class Detector:
    """A named finder with a validator that also normalises the matched value."""

    kind: str
    gate: str
    """The key of this detector's candidate pattern in ``gate.CANDIDATES`` (unique per detector)."""
    pattern: scan.Pattern
    check: Callable[[str], str | None]
    unchecked: Callable[[str], str | None] | None = None
    """For a costly ``check``: the value once a text's look-ups are spent (``phones``)."""
    memo: bool = True
    """Cache the check per matched text (False where the check costs less than a cache)."""


DETECTORS: dict[str, tuple[Detector, ...]] = {
    "credit_card": (Detector("CARD", "card", scan.Pattern(_CARD, _CARD_RE2), _card),),
    "iban": (Detector("IBAN", "iban", scan.Pattern(_IBAN, _IBAN_RE2), _iban),),
    "email": (Detector("EMAIL", "email", scan.Pattern(_EMAIL, _EMAIL_RE2), lambda m: m.lower()),),
    "ssn": (Detector("SSN", "ssn", scan.Pattern(_SSN, _SSN_RE2), lambda m: m, memo=False),),
    "phone": (
        Detector("PHONE", "phone", scan.Pattern(_PHONE, _PHONE_RE2), _phone),
        Detector(
            "PHONE",
            "grouped",
            scan.Pattern(phones.GROUPED, phones.GROUPED_RE2),
            phones.national_phone,
            phones.unchecked_phone,
        ),
    ),
}
"""Detectors by policy name, in priority order (earlier wins on overlapping matches)."""


def detectors_for(names: Iterable[str]) -> tuple[Detector, ...]:
    """The detectors of the policy names ``names``, in priority order."""
    chosen = set(names)
    return tuple(d for name, group in DETECTORS.items() if name in chosen for d in group)


def _may_hold(text: str) -> bool:
    """False when no detector can match ``text`` (the usual case, decided cheaply)."""
    return "@" in text or "%" in text or _has_backslash_u(text) or _digit_run(text)


def _has_backslash_u(text: str) -> bool:
    # A one-character search first: ``str``'s two-character search walks a text of digits
    # at 2.4 ms per MB ("5" shares its filter bit with "u"), memchr at 0.01 ms.
    return "\\" in text and "\\u" in text


def _digit_run(text: str) -> bool:
    """True when ``text`` holds 7 digits close together (every digit detector needs them)."""
    data = scan.ascii_bytes(text)
    if data is None:
        return _DIGIT_RUN.search(text) is not None
    return bool(_DIGIT_RUN_RE2.Match(scan.UNANCHORED, data, 0, len(data))[0][0] >= 0)


def _hmac_pads(key: bytes) -> tuple["hashlib._Hash", "hashlib._Hash"]:
    """SHA-256 states after the inner and outer HMAC key pads (RFC 2104), to copy per token."""
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    padded = key.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in padded))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in padded))
    return inner, outer


class Tokeniser:
    """Replaces detected values in text by stable keyed tokens, counting what it replaced."""

    def __init__(
        self,
        detectors: tuple[Detector, ...],
        key: bytes,
        gate: Gate | None = None,
    ) -> None:
        self._detectors = detectors
        grouped = next((d for d in detectors if d.gate == "grouped"), None)
        self._grouped = grouped
        self._gate = gate or Gate()
        self._inner, self._outer = _hmac_pads(key)
        self._checked: dict[tuple[str, str], str | None] = {}  # (detector gate, match) -> token
        self._lookups_left = phones.LOOKUPS_PER_TEXT  # costly checks left for this text
        self._memo: dict[str, dict[str, str | None]] = {d.gate: {} for d in detectors}
        """Per cheap detector: matched text -> token (None: check failed); checks are pure."""
        self._cache: dict[str, str] = {}  # "KIND:value" -> token
        self._texts: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._clean: set[str] = set()  # short texts known to hold nothing
        self.clean = self._clean
        """Short texts known to hold nothing (read by ``fields.RowScrubber`` as a fast check)."""

    def token(self, kind: str, value: str) -> str:
        """The token for one normalised value (same value and key -> same token)."""
        message = f"{kind}:{value}"  # what is hashed, and the cache key (kinds hold no ":")
        cached = self._cache.get(message)
        if cached is None:
            inner = self._inner.copy()  # HMAC-SHA256 with the key pads hashed once, in __init__
            inner.update(message.encode())
            outer = self._outer.copy()
            outer.update(inner.digest())
            cached = self._cache[message] = f"[{kind}:{outer.hexdigest()[:TOKEN_HEX]}]"
        return cached

    def _token_of_match(self, detector: "Detector", match: str) -> str | None:
        """The token for a matched text, None when its check fails.

        Costly checks (``Detector.unchecked`` set: ``phones``) are cached per match and
        limited per text; the others per match in ``_memo`` (dense texts repeat values), unless
        the check costs less than the cache (``Detector.memo``).
        """
        if not detector.memo:
            value = detector.check(match)
            return None if value is None else self.token(detector.kind, value)
        if detector.unchecked is None:
            memo = self._memo[detector.gate]
            token = memo.get(match, _UNSEEN)
            if token is _UNSEEN:
                value = detector.check(match)
                token = memo[match] = None if value is None else self.token(detector.kind, value)
            return token  # type: ignore[return-value]
        key = (detector.gate, match)
        if key in self._checked:
            return self._checked[key]
        if self._lookups_left <= 0:  # spent: tokenised unchecked, not cached as checked
            value = detector.unchecked(match)
            return None if value is None else self.token(detector.kind, value)
        self._lookups_left -= 1
        if len(self._checked) >= 65536:
            self._checked.clear()
        value = detector.check(match)
        token = self._checked[key] = None if value is None else self.token(detector.kind, value)
        return token

    def redact(self, text: str) -> tuple[str, tuple[str, ...]]:
        """``text`` with personal data replaced, and the kinds replaced (one per match).

        A text holding percent-encoded or backslash-u-escaped personal data is stored decoded,
        with the data replaced: the escaped form is the same value to any reader. So is a
        base64 text (how the decoders keep ``bytesValue``) whose bytes are text holding it.
        """
        if text in self._clean:
            return text, ()
        may_hold = _may_hold(text)
        if not may_hold and (len(text) < 12 or len(text) % 4 or not _BASE64_FORM(text)):
            if len(text) <= 200:  # names, keys and ids repeat on every span: decided once
                if len(self._clean) >= 65536:
                    self._clean.clear()
                self._clean.add(text)
            return text, ()
        cached = self._texts.get(text)
        if cached is None:
            if len(self._texts) >= 8192:
                self._texts.clear()
            cached = self._texts[text] = self._decoded(text, may_hold)
        return cached

    def _decoded(self, text: str, may_hold: bool) -> tuple[str, tuple[str, ...]]:
        """``_redact`` of ``text``, or of its decoded form when only that holds data.

        ``may_hold``: ``_may_hold(text)``, known to the caller (a second search cost as
        much as the scan's own pass on dense texts).
        """
        found = self._redact(text) if may_hold else (text, ())
        if found[1]:
            return found
        if _ESCAPE_FOUND(text):
            decoded = unescaped(text)
            if decoded != text:
                from_decoded = self._redact(decoded)
                if from_decoded[1]:
                    return from_decoded
        if len(text) >= 12 and len(text) % 4 == 0 and _BASE64_FORM(text):
            try:
                plain = base64.b64decode(text, validate=True).decode("utf-8")
            except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
                return found
            if _may_hold(plain):
                from_bytes = self._decoded(plain, True)
                if from_bytes[1]:
                    return from_bytes
        return found

    def _redact(self, text: str) -> tuple[str, tuple[str, ...]]:
        data = scan.ascii_bytes(text)
        hot: dict[str, Spans] | None = None  # None: every detector scans the whole text
        if len(text) > self._gate.chunk and (
            data is not None or text.isascii() or _OTHER_DIGIT.search(text) is None
        ):  # long texts: each detector only where its candidate occurs (linear, see ``gate``)
            hot = self._gate.hot_spans(text)
            if not hot:
                return text, ()
        taken: list[Taken] = []  # sorted, non-overlapping
        digits = _digit_run(text)
        self._lookups_left = phones.LOOKUPS_PER_TEXT
        has_at = "@" in text
        for memo in self._memo.values():
            if len(memo) >= 65536:
                memo.clear()
        for detector in self._detectors:
            if not (has_at if detector.kind == "EMAIL" else digits):
                continue
            spans = None if hot is None else hot.get(detector.gate)
            if hot is not None and spans is None:
                continue
            taken = self._claimed(taken, detector, detector.pattern.find(text, data, spans))
        if not taken:
            return text, ()
        pieces: list[str] = []
        append = pieces.append
        last = 0
        for start, end, token, _ in taken:
            append(text[last:start])
            append(token)
            last = end
        append(text[last:])
        return "".join(pieces), tuple(kind for _, _, _, kind in taken)

    def _claimed(
        self, taken: list[Taken], detector: Detector, matches: Iterable[Found]
    ) -> list[Taken]:
        """``taken`` plus the matches that overlap none of it and pass their check, in order.

        One pass over both (sorted): a match an earlier detector (higher priority) took is
        not checked again, nor looked up.
        """
        out: list[Taken] = []
        append = out.append
        token_of = self._token_of_match
        kind = detector.kind
        index, count = 0, len(taken)
        for start, end, match in matches:
            while index < count and taken[index][1] <= start:
                append(taken[index])
                index += 1
            if index < count and taken[index][0] < end:
                continue  # overlaps a match of a detector earlier in priority
            token = token_of(detector, match)
            if token is not None:
                append((start, end, token, kind))
        out.extend(taken[index:])
        return out
