"""Personal data in a text replaced by stable keyed tokens: the tokeniser.

The recognizers (``catalogue``: emails, payment cards, IBANs, US SSNs, phone numbers) are
searched in the text as written and, when that holds nothing, in its decoded forms
(``encodings``). Each recognizer's matches are those of its exact pattern over the text; the
one pass of ``gate`` says where each needs to look in a long text. A match its validator
accepts, and that overlaps no match of a recognizer earlier in the catalogue, is replaced.

A match becomes ``[KIND:<24 hex>]`` where the suffix is 96 bits of the HMAC-SHA256 of
``KIND:value`` (the normalised value) under the home's secret key (``keys``): the same value
always gives the same token under one key, so equality (argument correctness) still works on
redacted data, while the value cannot be recovered, nor guessed by trying values, without the
key. Token format version 2 (version 1: 10 hex digits under a public default key; stored
version-1 tokens do not match version-2 ones).
"""

import hmac
import re
from collections.abc import Iterable

from eval_pipeline.traces.redact import encodings, phones
from eval_pipeline.traces.redact.catalogue import Recognizer
from eval_pipeline.traces.redact.gate import Found, Gate, holds_other_digits, matches

Taken = tuple[int, int, str, str]
"""A replaced match: start, end, its token and the token's kind."""
Redacted = tuple[str, tuple[str, ...]]
"""A text with its personal data replaced, and the kinds replaced (one per match)."""

TOKEN_HEX = 24
"""Hex digits of a token: 96 bits of the keyed hash (version 2; version 1 had 10, 40 bits)."""
_TOKEN = re.compile(rf"\[(?:CARD|IBAN|EMAIL|SSN|PHONE):([0-9a-f]{{{TOKEN_HEX}}})\]")
_DIGIT_RUN = re.compile(r"\d(?:[ ().-]{0,2}\d){6}")
"""7 digits close together: what every recognizer that ``needs: digit_run`` matches."""
_CACHE_LIMIT = 65536
"""Entries a cache holds before it is emptied (they only save work: results stay the same)."""
_UNSEEN = object()


def holds_token(text: str) -> bool:
    """True when ``text`` holds a token made by ``Tokeniser`` (a value that was redacted)."""
    return "[" in text and _TOKEN.search(text) is not None


def opaque(text: str) -> str:
    """``text`` with each token as its bare key (``[EMAIL:5b71f2aec3]`` -> ``5b71f2aec3``).

    For readers that compare words: the kind names what was hidden, it is not a word of the
    text (the raw address did not say "email" either); the key still matches equal values.
    """
    return _TOKEN.sub(r"\1", text) if "[" in text else text


def _may_hold(text: str) -> bool:
    """False when no recognizer can match ``text`` nor its decoded forms (decided cheaply)."""
    return (
        "@" in text
        or "%" in text
        or encodings.has_backslash_u(text)
        or _DIGIT_RUN.search(text) is not None
    )


class Tokeniser:
    """Replaces recognized values in text by stable keyed tokens, counting what it replaced."""

    def __init__(
        self, recognizers: tuple[Recognizer, ...], key: bytes, gate: Gate | None = None
    ) -> None:
        self._recognizers = recognizers
        self._gate = gate or Gate(recognizers)
        self._key = key
        self._tokens: dict[str, str] = {}  # "KIND:value" -> token
        self._memo: dict[str, dict[str, str | None]] = {r.name: {} for r in recognizers}
        """Per recognizer: matched text -> token (None: rejected); validators are pure."""
        self._lookups_left = phones.LOOKUPS_PER_TEXT  # costly checks left for this text
        self._texts: dict[str, Redacted] = {}
        self.clean: set[str] = set()
        """Short texts known to hold nothing (names, keys and ids repeat on every span)."""

    def token(self, kind: str, value: str) -> str:
        """The token for one normalised value (same value and key -> same token)."""
        message = f"{kind}:{value}"  # what is hashed, and the cache key (kinds hold no ":")
        token = self._tokens.get(message)
        if token is None:
            if len(self._tokens) >= _CACHE_LIMIT:
                self._tokens.clear()
            digest = hmac.digest(self._key, message.encode(), "sha256")
            token = self._tokens[message] = f"[{kind}:{digest.hex()[:TOKEN_HEX]}]"
        return token

    def redact(self, text: str) -> Redacted:
        """``text`` with personal data replaced, and the kinds replaced (one per match).

        A text holding percent-encoded or backslash-u-escaped personal data is stored decoded,
        with the data replaced: the escaped form is the same value to any reader. So is a
        base64 text (how the decoders keep ``bytesValue``) whose bytes are text holding it.
        """
        if text in self.clean:
            return text, ()
        may_hold = _may_hold(text)
        if not may_hold and not encodings.base64_form(text):
            if len(text) <= 200:
                if len(self.clean) >= _CACHE_LIMIT:
                    self.clean.clear()
                self.clean.add(text)
            return text, ()
        cached = self._texts.get(text)
        if cached is None:
            if len(self._texts) >= 8192:
                self._texts.clear()
            cached = self._texts[text] = self._decoded(text, may_hold)
        return cached

    def _decoded(self, text: str, may_hold: bool) -> Redacted:
        """``_scan`` of ``text``, or of its decoded form when only that holds personal data."""
        found = self._scan(text) if may_hold else (text, ())
        if found[1]:
            return found
        if encodings.holds_escape(text):
            decoded = encodings.unescaped(text)
            if decoded != text:
                from_decoded = self._scan(decoded)
                if from_decoded[1]:
                    return from_decoded
        if encodings.base64_form(text):
            plain = encodings.base64_text(text)
            if plain is not None and _may_hold(plain):
                from_bytes = self._decoded(plain, True)
                if from_bytes[1]:
                    return from_bytes
        return found

    def _scan(self, text: str) -> Redacted:
        """``text`` with the accepted matches of every recognizer replaced (priority order)."""
        hot = None  # None: every recognizer scans the whole text
        if len(text) > self._gate.chunk and not holds_other_digits(text):
            hot = self._gate.hot_spans(text)
            if not hot:
                return text, ()
        passes = {"at_sign": "@" in text, "digit_run": _DIGIT_RUN.search(text) is not None}
        self._lookups_left = phones.LOOKUPS_PER_TEXT
        taken: list[Taken] = []  # sorted, non-overlapping
        for recognizer in self._recognizers:
            spans = None if hot is None else hot.get(recognizer.name)
            if passes[recognizer.needs] and (hot is None or spans is not None):
                found = matches(recognizer.pattern, text, spans)
                taken = self._claimed(taken, recognizer, found)
        if not taken:
            return text, ()
        pieces: list[str] = []
        last = 0
        for start, end, token, _ in taken:
            pieces += (text[last:start], token)
            last = end
        pieces.append(text[last:])
        return "".join(pieces), tuple(kind for _, _, _, kind in taken)

    def _claimed(
        self, taken: list[Taken], recognizer: Recognizer, found: Iterable[Found]
    ) -> list[Taken]:
        """``taken`` plus the matches that overlap none of it and pass their check, in order.

        One pass over both (sorted): a match an earlier recognizer (higher priority) took is
        not checked again, nor looked up.
        """
        out: list[Taken] = []
        token_of = self._token_of_match
        index, count = 0, len(taken)
        for start, end, match in found:
            while index < count and taken[index][1] <= start:
                out.append(taken[index])
                index += 1
            if index < count and taken[index][0] < end:
                continue  # overlaps a match of a recognizer earlier in priority
            token = token_of(recognizer, match)
            if token is not None:
                out.append((start, end, token, recognizer.kind))
        out.extend(taken[index:])
        return out

    def _token_of_match(self, recognizer: Recognizer, match: str) -> str | None:
        """The token for a matched text, None when its validator rejects it.

        Results are kept per recognizer and match (dense texts repeat values). A costly
        validator (``unchecked`` set: ``phones``) runs at most ``LOOKUPS_PER_TEXT`` times per
        text on values not seen before; past that, a value is tokenised unchecked and that
        result is not kept.
        """
        memo = self._memo[recognizer.name]
        token = memo.get(match, _UNSEEN)
        if token is not _UNSEEN:
            return token  # type: ignore[return-value]
        check = recognizer.validate
        if recognizer.unchecked is not None:
            if self._lookups_left <= 0:
                value = recognizer.unchecked(match)
                return None if value is None else self.token(recognizer.kind, value)
            self._lookups_left -= 1
        if len(memo) >= _CACHE_LIMIT:
            memo.clear()
        value = check(match)
        token = memo[match] = None if value is None else self.token(recognizer.kind, value)
        return token
