"""Personal data in a text replaced by stable keyed tokens: the tokeniser.

The recognizers (``catalogue``: emails, payment cards, IBANs, US SSNs, phone numbers) are
searched in the text as written and, when that holds nothing, in its decoded forms
(``encodings``). Each recognizer's matches are those of its exact pattern over the text, found
by the cheaper engine for their density (``engines``); the one pass of ``gate`` says where
each needs to look in a long text. A match its validator
accepts, and that overlaps no match of a recognizer earlier in the catalogue, is replaced.

A match becomes ``[KIND:<24 hex>]`` where the suffix is 96 bits of the HMAC-SHA256 of
``KIND:value`` (the normalised value) under the home's secret key (``keys``): the same value
always gives the same token under one key, so equality (argument correctness) still works on
redacted data, while the value cannot be recovered, nor guessed by trying values, without the
key. Token format version 2 (version 1: 10 hex digits under a public default key; stored
version-1 tokens do not match version-2 ones).
"""

import hashlib
import hmac
import re

from eval_pipeline.traces.redact import encodings, phones
from eval_pipeline.traces.redact.catalogue import Recognizer
from eval_pipeline.traces.redact.engines import ExactPattern, Span, ascii_bytes, compile_re2, occurs
from eval_pipeline.traces.redact.gate import Gate, holds_other_digits

Taken = tuple[int, int, str, str]
"""A replaced match: start, end, its token and the token's kind."""
Redacted = tuple[str, tuple[str, ...]]
"""A text with its personal data replaced, and the kinds replaced (one per match)."""

TOKEN_HEX = 24
"""Hex digits of a token: 96 bits of the keyed hash (version 2; version 1 had 10, 40 bits)."""
_TOKEN = re.compile(rf"\[(?:CARD|IBAN|EMAIL|SSN|PHONE):([0-9a-f]{{{TOKEN_HEX}}})\]")
_DIGIT_RUN = re.compile(r"\d(?:[ ().-]{0,2}\d){6}")
"""7 digits close together: what every recognizer that ``needs: digit_run`` matches."""
_DIGIT_RUN_RE2 = compile_re2(r"[0-9](?:[ ().-]{0,2}[0-9]){6}")
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


def _digit_run(text: str, data: bytes | None) -> bool:
    """True when ``text`` holds 7 digits close together (``data``: as ``ascii_bytes`` gives)."""
    if data is None:
        return _DIGIT_RUN.search(text) is not None
    return occurs(_DIGIT_RUN_RE2, data)


def _may_hold(text: str, data: bytes | None) -> bool:
    """False when no recognizer can match ``text`` nor its decoded forms (decided cheaply)."""
    return "@" in text or "%" in text or encodings.has_backslash_u(text) or _digit_run(text, data)


class Tokeniser:
    """Replaces recognized values in text by stable keyed tokens, counting what it replaced."""

    def __init__(
        self, recognizers: tuple[Recognizer, ...], key: bytes, gate: Gate | None = None
    ) -> None:
        self._recognizers = recognizers
        self._exact = tuple(ExactPattern(r.pattern, r.re2) for r in recognizers)
        self._gate = gate or Gate(recognizers)
        self._keyed = hmac.new(key, digestmod=hashlib.sha256)
        """HMAC-SHA256 with the key set up once; each token hashes a copy (``hmac.digest``
        would set the key up again on every call, about 1.5x the cost)."""
        self._memo: dict[str, dict[str, str | None]] = {r.name: {} for r in recognizers}
        """Per recognizer: matched text -> token (None: rejected); validators are pure."""
        self._lookups_left = phones.LOOKUPS_PER_TEXT  # costly checks left for this text
        self._texts: dict[str, Redacted] = {}
        self.clean: set[str] = set()
        """Short texts known to hold nothing (names, keys and ids repeat on every span)."""

    def token(self, kind: str, value: str) -> str:
        """The token for one normalised value (same value and key -> same token).

        Not cached: the scan keeps tokens per matched text (``_claimed``), and a keyed hash
        from the copied HMAC state costs about what a second cache's look-up and upkeep would.
        """
        keyed = self._keyed.copy()
        keyed.update(f"{kind}:{value}".encode())  # kinds hold no ":"
        return f"[{kind}:{keyed.hexdigest()[:TOKEN_HEX]}]"

    def redact(self, text: str) -> Redacted:
        """``text`` with personal data replaced, and the kinds replaced (one per match).

        A text holding percent-encoded or backslash-u-escaped personal data is stored decoded,
        with the data replaced: the escaped form is the same value to any reader. So is a
        base64 text (how the decoders keep ``bytesValue``) whose bytes are text holding it.
        """
        if text in self.clean:
            return text, ()
        data = ascii_bytes(text)
        may_hold = _may_hold(text, data)
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
            cached = self._texts[text] = self._decoded(text, data, may_hold)
        return cached

    def _decoded(self, text: str, data: bytes | None, may_hold: bool) -> Redacted:
        """``_scan`` of ``text``, or of its decoded form when only that holds personal data.

        ``data``: ``text`` as ``engines.ascii_bytes`` gives it; ``may_hold``: ``_may_hold``'s
        answer, known to the caller.
        """
        found = self._scan(text, data) if may_hold else (text, ())
        if found[1]:
            return found
        if encodings.holds_escape(text):
            decoded = encodings.unescaped(text)
            if decoded != text:
                from_decoded = self._scan(decoded, ascii_bytes(decoded))
                if from_decoded[1]:
                    return from_decoded
        if encodings.base64_form(text):
            plain = encodings.base64_text(text)
            plain_data = None if plain is None else ascii_bytes(plain)
            if plain is not None and _may_hold(plain, plain_data):
                from_bytes = self._decoded(plain, plain_data, True)
                if from_bytes[1]:
                    return from_bytes
        return found

    def _scan(self, text: str, data: bytes | None) -> Redacted:
        """``text`` with the accepted matches of every recognizer replaced (priority order).

        ``data``: ``text`` as ``engines.ascii_bytes`` gives it.
        """
        hot = None  # None: every recognizer scans the whole text
        if len(text) > self._gate.chunk and not holds_other_digits(text):
            hot = self._gate.hot_spans(text)
            if not hot:
                return text, ()
        passes = {"at_sign": "@" in text, "digit_run": _digit_run(text, data)}
        self._lookups_left = phones.LOOKUPS_PER_TEXT
        taken: list[Taken] = []  # sorted, non-overlapping
        for recognizer, exact in zip(self._recognizers, self._exact, strict=True):
            spans = None if hot is None else hot.get(recognizer.name)
            if passes[recognizer.needs] and (hot is None or spans is not None):
                found = exact.spans(text, data, spans)
                if found:
                    taken = self._claimed(taken, recognizer, text, found)
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
        return "".join(pieces), tuple([kind for _, _, _, kind in taken])

    def _claimed(
        self, taken: list[Taken], recognizer: Recognizer, text: str, found: list[Span]
    ) -> list[Taken]:
        """``taken`` plus the matches that overlap none of it and pass their check, in order.

        One pass over both (sorted): a match an earlier recognizer (higher priority) took is
        not checked again, nor looked up. Results are kept per recognizer and matched text
        (dense texts repeat values; the validators are pure), the cache emptied once full.
        """
        memo = self._memo[recognizer.name]
        if len(memo) >= _CACHE_LIMIT:
            memo.clear()
        recall = memo.get
        kind = recognizer.kind
        validate = recognizer.validate
        token_of = self.token
        costly = recognizer.unchecked is not None
        out: list[Taken] = []
        append = out.append
        index, count = 0, len(taken)
        for start, end in found:
            while index < count and taken[index][1] <= start:
                append(taken[index])
                index += 1
            if index < count and taken[index][0] < end:
                continue  # overlaps a match of a recognizer earlier in priority
            match = text[start:end]
            token = recall(match, _UNSEEN)
            if token is _UNSEEN:
                if costly:
                    token = self._costly(recognizer, memo, match)
                else:
                    value = validate(match)
                    token = memo[match] = None if value is None else token_of(kind, value)
            if token is not None:
                append((start, end, token, kind))  # type: ignore[arg-type]
        out.extend(taken[index:])
        return out

    def _costly(
        self, recognizer: Recognizer, memo: dict[str, str | None], match: str
    ) -> str | None:
        """The token for a match a costly validator (``unchecked`` set: ``phones``) checks.

        The validator runs at most ``LOOKUPS_PER_TEXT`` times per text; past that, a value is
        tokenised unchecked and that result is not kept.
        """
        assert recognizer.unchecked is not None
        if self._lookups_left <= 0:
            value = recognizer.unchecked(match)
            return None if value is None else self.token(recognizer.kind, value)
        self._lookups_left -= 1
        value = recognizer.validate(match)
        token = memo[match] = None if value is None else self.token(recognizer.kind, value)
        return token
