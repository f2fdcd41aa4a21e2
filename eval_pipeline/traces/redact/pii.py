"""Personal data in a text replaced by stable keyed tokens: the tokeniser.

The recognizers (``catalogue``: emails, payment cards, IBANs, phone numbers, IP addresses and
the national identifiers of the catalogue's locales) read the text as a reader does
(``folding``: escapes and character references decoded, Unicode folded, obfuscations undone),
always: plain and encoded values in one text are all found, and each match is replaced where
it was written (``%40`` and all). Base64 runs inside a text are decoded and scanned too
(``encodings``); a run holding personal data is stored decoded, with it replaced.
Each recognizer's matches are those of its exact pattern over the text, found
by the cheaper engine for their density (``engines``); the one pass of ``gate`` says which
recognizers can match at all, and where each needs to look in a long text. A match its
validator accepts (and with a context word near, for the recognizers that need one), and that
overlaps no match of a recognizer earlier in the catalogue, is replaced.

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

from re2 import _re2

from eval_pipeline.traces.redact import encodings, phones
from eval_pipeline.traces.redact.catalogue import KINDS, Recognizer
from eval_pipeline.traces.redact.engines import ExactPattern, Span, ascii_bytes, compile_re2, occurs
from eval_pipeline.traces.redact.folding import fold, needs_folding
from eval_pipeline.traces.redact.gate import Gate, holds_other_digits

Taken = tuple[int, int, str, str]
"""A replaced match: start, end, its token and the token's kind."""
Redacted = tuple[str, tuple[str, ...]]
"""A text with its personal data replaced, and the kinds replaced (one per match)."""
Place = tuple[int, int, str, tuple[str, ...]]
"""Where a text as written holds personal data: start, end, what replaces it, its kinds."""

TOKEN_HEX = 24
"""Hex digits of a token: 96 bits of the keyed hash (version 2; version 1 had 10, 40 bits)."""
_TOKEN = re.compile(rf"\[(?:{'|'.join(KINDS)}):([0-9a-f]{{{TOKEN_HEX}}})\]")
_DIGIT_RUN = re.compile(r"\d(?:[ ().-]{0,2}\d){6}")
"""7 digits close together: what every recognizer that ``needs: digit_run`` matches."""
_DIGIT_RUN_RE2 = compile_re2(r"[0-9](?:[ ().-]{0,2}[0-9]){6}")
_DIGITS4 = re.compile(r"\d(?:\D{0,2}\d){3}")
"""4 digits close together: what the recognizers that ``needs: digits4`` match (a NINO's
pairs, a PAN's 4, an IP address's octets)."""
_DIGITS4_RE2 = compile_re2(r"[0-9](?:[^0-9]{0,2}[0-9]){3}")
_CONTEXT_CHARS = 48
"""Characters either side of a match searched for its recognizer's context words."""
_BASE64_DEPTH = 2
"""Base64 inside base64 decoded this many times at most."""
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


def _digits4(text: str, data: bytes | None) -> bool:
    """True when ``text`` holds 4 digits close together (``data``: as ``ascii_bytes`` gives)."""
    if data is None:
        return _DIGITS4.search(text) is not None
    return occurs(_DIGITS4_RE2, data)


def _may_hold(text: str, data: bytes | None) -> bool:
    """False when no recognizer can match ``text`` (as folded; decided cheaply)."""
    return "@" in text or _digits4(text, data)


def _context_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """One of ``words`` as a word of its own, in any case."""
    alternatives = "|".join(map(re.escape, words))
    return re.compile(rf"(?<![a-z])(?:{alternatives})(?![a-z])", re.IGNORECASE)


def _context_re2(words: tuple[str, ...]) -> "_re2.RE2":
    """``_context_pattern`` for RE2 (ASCII bytes): the boundaries consumed."""
    alternatives = "|".join(map(re.escape, words))
    return compile_re2(f"(?i)(?:^|[^a-z])(?:{alternatives})(?:$|[^a-z])")


def _near(text: str, start: int, end: int, context: re.Pattern[str]) -> bool:
    """True when a ``context`` word is written near ``text[start:end]``."""
    return context.search(text, max(0, start - _CONTEXT_CHARS), end + _CONTEXT_CHARS) is not None


_OTHER_DIGITS = {
    code: "0" for code in range(128, 0x20000) if chr(code).isdecimal()
}  # fmt: skip
"""Decimal digits of other scripts -> ``0``: how the gate's candidates (ASCII) see them."""


def _after(text: str, start: int, words: tuple[str, ...]) -> bool:
    """True when ``text[:start]`` ends with one of ``words`` (then spaces, ``:`` or ``=``)."""
    before = text[max(0, start - 24) : start].rstrip(" :=").lower()
    return any(before.endswith(word) and not before[: -len(word)][-1:].isalpha() for word in words)


class Tokeniser:
    """Replaces recognized values in text by stable keyed tokens, counting what it replaced."""

    def __init__(
        self, recognizers: tuple[Recognizer, ...], key: bytes, gate: Gate | None = None
    ) -> None:
        self._recognizers = recognizers
        self._exact = tuple(ExactPattern(r.pattern, r.re2) for r in recognizers)
        self._context = {r.name: _context_pattern(r.context) for r in recognizers if r.context}
        """Per recognizer needing one: its context words (a text without any is skipped)."""
        self._context_re2 = {r.context: _context_re2(r.context) for r in recognizers if r.context}
        self._bare_context = {
            r.name: _context_pattern(r.bare_context) for r in recognizers if r.bare_context
        }
        """Per recognizer whose bare digit runs need a context word near (``bare_context``)."""
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

        Each value is replaced where it was written: in ``?to=bob%40example.com`` the
        ``bob%40example.com``. A base64 run (how the decoders keep ``bytesValue``, or inside a
        longer text) whose bytes are text holding personal data is stored decoded, with the
        data replaced.
        """
        if text in self.clean:
            return text, ()
        cached = self._texts.get(text)
        if cached is None:
            cached = self._redacted(text, 0)
            if not cached[1] and len(text) <= 200:
                if len(self.clean) >= _CACHE_LIMIT:
                    self.clean.clear()
                self.clean.add(text)
            else:
                if len(self._texts) >= 8192:
                    self._texts.clear()
                self._texts[text] = cached
        return cached

    def _redacted(self, text: str, depth: int) -> Redacted:
        """``redact``'s result, uncached; ``depth``: base64 decodings around ``text``."""
        places = self.places(text, depth)
        if not places:
            return text, ()
        pieces: list[str] = []
        append = pieces.append
        last = 0
        for start, end, replacement, _ in places:
            append(text[last:start])
            append(replacement)
            last = end
        append(text[last:])
        return "".join(pieces), tuple([kind for place in places for kind in place[3]])

    def places(self, text: str, depth: int = 0) -> list[Place]:
        """Where ``text`` as written holds personal data, with what replaces it (sorted).

        ``depth``: base64 decodings around ``text`` (runs are probed below ``_BASE64_DEPTH``).
        """
        data = ascii_bytes(text)
        folded = fold(text) if needs_folding(text, data) else None
        read = text if folded is None else folded.text
        read_data = data if folded is None else ascii_bytes(read)
        taken = self._taken(read, read_data) if _may_hold(read, read_data) else []
        if folded is None:  # the usual case: matches are where they were read
            places: list[Place] = [(s, e, token, (kind,)) for s, e, token, kind in taken]
        else:
            places = []
            for start, end, token, kind in taken:
                start, end = folded.original(start, end)
                if places and start < places[-1][1]:  # one written piece read as two values
                    first, last, tokens, kinds = places.pop()
                    places.append((first, max(end, last), tokens + token, (*kinds, kind)))
                else:
                    places.append((start, end, token, (kind,)))
        if depth < _BASE64_DEPTH:
            places = self._base64_runs(text, data, places, depth)
        return places

    def _base64_runs(
        self,
        text: str,
        data: bytes | None,
        places: list[Place],
        depth: int,
    ) -> list[Place]:
        """``places`` plus each base64 run of ``text`` that decodes to text holding PII."""
        added = []
        index, count = 0, len(places)
        for start, end in encodings.base64_runs(text, data):  # both sorted: one pass
            while index < count and places[index][1] <= start:
                index += 1
            if index < count and places[index][0] < end:
                continue
            plain = encodings.base64_text(text[start:end])
            if plain is None:
                continue
            redacted, kinds = self._redacted(plain, depth + 1)
            if kinds:
                added.append((start, end, redacted, kinds))
        return sorted(places + added) if added else places

    def _taken(self, text: str, data: bytes | None) -> list[Taken]:
        """The accepted matches of every recognizer in ``text`` (priority order), sorted.

        ``data``: ``text`` as ``engines.ascii_bytes`` gives it.
        """
        hot = None  # None: every recognizer scans the whole text
        which = None  # None: every recognizer may match
        # The candidates read ASCII digits: other scripts' digits are shown to them as "0"
        # (same length: positions hold).
        seen = text.translate(_OTHER_DIGITS) if holds_other_digits(text) else text
        if len(text) > self._gate.chunk:
            hot = self._gate.hot_spans(seen)
            if not hot:
                return []
        else:
            which = self._gate.which(seen)
            if not which:
                return []
        passes = {
            "at_sign": "@" in text,
            "digit_run": _digit_run(text, data),
            "digits4": _digits4(text, data),
            "non_ascii": "@" in text and not text.isascii(),
        }
        self._lookups_left = phones.LOOKUPS_PER_TEXT
        contexts: dict[tuple[str, ...], bool] = {}  # context words -> whether in ``text``
        taken: list[Taken] = []  # sorted, non-overlapping
        for recognizer, exact in zip(self._recognizers, self._exact, strict=True):
            if which is not None and recognizer.name not in which:
                continue
            spans = None if hot is None else hot.get(recognizer.name)
            if not passes[recognizer.needs] or (hot is not None and spans is None):
                continue
            if recognizer.context and not self._has_context(recognizer, text, data, contexts):
                continue  # a weak pattern, and none of its context words anywhere
            found = exact.spans(text, data, spans)
            if found:
                taken = self._claimed(taken, recognizer, text, found)
        return taken

    def _has_context(
        self,
        recognizer: Recognizer,
        text: str,
        data: bytes | None,
        contexts: dict[tuple[str, ...], bool],
    ) -> bool:
        """True when one of ``recognizer``'s context words is in ``text`` (kept per text)."""
        words = recognizer.context
        found = contexts.get(words)
        if found is None:
            if data is not None:
                found = occurs(self._context_re2[words], data)
            else:
                found = self._context[recognizer.name].search(text) is not None
            contexts[words] = found
        return found

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
        context = self._context.get(recognizer.name)
        bare_context = self._bare_context.get(recognizer.name)
        not_after = recognizer.not_after
        out: list[Taken] = []
        append = out.append
        index, count = 0, len(taken)
        for start, end in found:
            while index < count and taken[index][1] <= start:
                append(taken[index])
                index += 1
            if index < count and taken[index][0] < end:
                continue  # overlaps a match of a recognizer earlier in priority
            if context and not _near(text, start, end, context):
                continue  # a weak pattern without one of its context words near
            if not_after and _after(text, start, not_after):
                continue  # "version 1.2.3.4"
            match = text[start:end]
            if bare_context and match.isdigit() and not _near(text, start, end, bare_context):
                continue  # a bare digit run (an id?) without its identifier's context word
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
