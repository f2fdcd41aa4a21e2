r"""The text the recognizers read: decoded and folded, with a map back to the text as written.

Personal data reaches the store spelled in ways a reader takes for the same value:
``bob%40example.com`` (and ``bob%2540example.com``, encoded twice), ``bob\u0040example.com``,
``bob&#64;example.com``, ``bob [at] example [dot] com``, ``４１１１ １１１１ …`` (full width),
``4111 1111 …`` with non-breaking or narrow spaces, ``07700‑900123`` with a Unicode hyphen,
digits with zero-width or bidi characters between them, ``card4111111111111111`` (glued to a
word). ``fold`` gives the text the recognizers scan: percent-encoding (repeated) and ``\u``
escapes decoded, HTML character references decoded, Unicode NFKC, zero-width and bidi
controls removed, Unicode spaces and hyphens folded to ASCII, obfuscated e-mail ``at``/``dot``
written as ``@``/``.``, a space put between a word and an 8-digit run glued to it.

Each folding step rewrites matched pieces and keeps, per segment of its output, the range
of its input it came from (a piece whose length changed maps each of its output characters to
the whole piece): a map the size of the pieces, looked up by bisection; steps compose.
``Folded.original`` maps a match back to the text as written, so the redaction replaces what
was written (``%40`` included) and leaves the rest as it was.

Pure ASCII text without ``%``, ``&``, ``\``, ``[at]``-like brackets or `` dot `` and without
a word glued to 8 digits is left as it is, at the cost of one linear search
(``needs_folding``: RE2 on long texts).
"""

import html
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass

from eval_pipeline.traces.redact.engines import compile_re2, occurs

ROUNDS = 3
"""Times the decoding step repeats (``%2540`` -> ``%40`` -> ``@``: percent-encoded twice)."""

_INVISIBLE = dict.fromkeys(
    [
        0x00AD,
        0x180E,
        0xFEFF,
        *range(0x200B, 0x2010),
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2065),
        *range(0x2066, 0x206A),
    ]
)
"""Soft hyphen, zero-width characters, bidi embeddings, overrides and isolates: removed."""
_FOLDS = str.maketrans(
    {
        **{c: " " for c in "\u00a0\u1680\u2007\u202f\u205f\u3000"},
        **dict.fromkeys(map(chr, range(0x2000, 0x200B)), " "),
        **{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"},
    }
)
"""Unicode spaces to a space, Unicode hyphens and dashes (and the minus sign) to ``-``."""

_DECODE = re.compile(
    r"(?:%[0-9A-Fa-f]{2})+|(?:\\u[0-9A-Fa-f]{4})+"
    r"|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});|[^\x00-\x7f]"
)
r"""What one decoding round rewrites: percent runs, ``\u`` runs, character references, and
each character that is not ASCII (NFKC, invisible ones removed, spaces and hyphens folded)."""
_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})")

_AT = r"\s*[\[({<]\s*at\s*[\])}>]\s*|\s+at\s+"
_DOT = r"\s*[\[({<]\s*dot\s*[\])}>]\s*|\s+dot\s+"
_OBFUSCATED = re.compile(
    rf"(?<![\w.+-])([\w.+-]{{1,64}})({_AT})(\w[\w-]{{0,62}}(?:(?:{_DOT}|\.)\w[\w-]{{0,62}}){{1,8}})",
    re.IGNORECASE,
)
"""An e-mail address written with ``[at]``, ``(at)``, `` at `` and ``[dot]``, `` dot ``."""
_OBFUSCATED_DOT = re.compile(_DOT, re.IGNORECASE)
_HINT = re.compile(r"[\[({<]\s*(?:at|dot)\s*[\])}>]|\sdot\s", re.IGNORECASE)
_ESCAPES = (
    r"%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|&(?:#[0-9]|#[xX][0-9A-Fa-f]|[A-Za-z][A-Za-z0-9]{1,31};)"
)
_OBFUSCATIONS = r"[\[({<]\s*(?i:at|dot)\s*[\])}>]|\s(?i:dot)\s"
_GLUES = (
    r"(?:^|[^A-Za-z0-9_-])[A-Za-z]{2,}[0-9](?:[ ().-]{0,2}[0-9]){7}"
    r"|[0-9](?:[ ().-]{0,2}[0-9]){7}[A-Za-z]"
)
_TRIGGER = f"{_ESCAPES}|{_OBFUSCATIONS}|{_GLUES}"
"""Where folding may change an ASCII text: escapes, references, obfuscations, glued digits."""
_TRIGGER_RE = re.compile(_TRIGGER)
_TRIGGER_RE2 = compile_re2(_TRIGGER)
_PASSES_RE2 = tuple(map(compile_re2, (_ESCAPES, _OBFUSCATIONS, _GLUES)))
_UNICODE_GLUES_RE2 = compile_re2(
    r"(?:^|[^\pL\pN_-])[\pL\p{Nl}\p{No}]{2,}\pN(?:[ ().-]{0,2}\pN){7}"
    r"|\pN(?:[ ().-]{0,2}\pN){7}[\pL\p{Nl}\p{No}]"
)
r"""``_GLUES`` over any script: a superset of the Python classes (``[^\W\d_]`` is a letter or
a number that is not a decimal digit, ``\d`` a decimal digit)."""
_NON_ASCII = re.compile(r"[^\x00-\x7f]")

_GLUE = re.compile(
    r"(?<![\w-])[^\W\d_]{2,}(?=\d(?:[ ().-]{0,2}\d){7})"
    r"|\d(?:[ ().-]{0,2}\d){7}(?=[^\W\d_])"
)
"""A word of letters (2 or more: ``v`` of ``v12.4.567`` is a version's) glued to 8 digits, or
8 digits glued to a letter."""
_HEX_WORD = re.compile(r"[0-9A-Fa-f-]*[A-Fa-f][0-9A-Fa-f-]*")
"""A word a space is never put into: hex with a letter (hashes, UUIDs, git SHAs)."""
_WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

Piece = tuple[int, int, str]
"""A rewrite: input start, input end, output text (start == end: an insertion)."""


class StepMap:
    """One folding step's map: its output in segments, each copied or read from a piece.

    Segment ``k`` starts at ``out_starts[k]`` in the output and came from
    ``[in_starts[k], in_ends[k])`` of the input: character by character when ``copied[k]``,
    else as a whole (a decoded escape, a folded character, an inserted space).
    """

    def __init__(self) -> None:
        self.out_starts: list[int] = []
        self.in_starts: list[int] = []
        self.in_ends: list[int] = []
        self.copied: list[bool] = []

    def add(self, out_start: int, in_start: int, in_end: int, copied: bool) -> None:
        """Append the next segment."""
        self.out_starts.append(out_start)
        self.in_starts.append(in_start)
        self.in_ends.append(in_end)
        self.copied.append(copied)

    def lo(self, index: int) -> int:
        """Where output character ``index`` starts in the input."""
        k = bisect_right(self.out_starts, index) - 1
        if self.copied[k]:
            return self.in_starts[k] + index - self.out_starts[k]
        return self.in_starts[k]

    def hi(self, index: int) -> int:
        """Where output character ``index`` ends in the input."""
        k = bisect_right(self.out_starts, index) - 1
        if self.copied[k]:
            return self.in_starts[k] + index - self.out_starts[k] + 1
        return self.in_ends[k]


@dataclass(frozen=True)
class Folded:
    """A folded text and the maps of the steps that made it (written text first)."""

    text: str
    steps: tuple[StepMap, ...]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of the written text that ``text[start:end]`` was read from."""
        lo, hi = start, end
        for step in reversed(self.steps):
            new_lo = step.lo(lo)
            new_hi = step.hi(hi - 1) if hi > lo else new_lo
            lo, hi = new_lo, max(new_hi, new_lo)
        return lo, hi


def needs_folding(text: str, data: bytes | None = None) -> bool:
    """False when ``fold`` would return ``text`` unchanged (decided in one linear pass).

    ``data``: ``text`` as ``engines.ascii_bytes`` gives it (then RE2 searches it).
    """
    if not text.isascii():
        return True
    if data is not None:
        return occurs(_TRIGGER_RE2, data)
    return _TRIGGER_RE.search(text) is not None


def fold(text: str) -> Folded | None:
    """``text`` as the recognizers read it, with its map; None when nothing changes."""
    folded: Folded | None = None
    current = text
    for _ in range(ROUNDS):
        pieces = _decoded_pieces(current) if _may_change(current, 0) else []
        if not pieces:
            break
        folded = _step(folded, current, pieces)
        current = folded.text
        if not any(c in read for _, _, read in pieces for c in "%&\\"):
            break  # nothing decoded can be decoded again
    for index, pieces_of in ((1, _obfuscated_pieces), (2, _glued)):
        pieces = pieces_of(current) if _may_change(current, index) else []
        if pieces:
            folded = _step(folded, current, pieces)
            current = folded.text
    return folded


def _may_change(text: str, step: int) -> bool:
    """False when folding step ``step`` (decode, obfuscations, glued) cannot change ``text``.

    Decided by RE2 on a long text (on a text not ASCII, decoding always may, and the glued
    step is searched in any script); a short text: True (the step itself decides).
    """
    if len(text) < 256:
        return True
    if text.isascii():
        return occurs(_PASSES_RE2[step], text.encode("ascii"))
    if step == 0:
        return True
    pattern = _UNICODE_GLUES_RE2 if step == 2 else _PASSES_RE2[step]
    return occurs(pattern, text.encode("utf-8", "surrogatepass"))


def _escapes_in(text: str) -> bool:
    """True when ``text`` may hold an escape or a character reference (RE2 when long)."""
    if len(text) < 256:
        return True
    return occurs(_PASSES_RE2[0], text.encode("utf-8", "surrogatepass"))


def _decoded_pieces(text: str) -> list[Piece]:
    """One decoding round's rewrites (each distinct escape decoded once: they repeat)."""
    pieces: list[Piece] = []
    append = pieces.append
    seen: dict[str, str] = {}
    pattern = _DECODE if text.isascii() or _escapes_in(text) else _NON_ASCII
    for match in pattern.finditer(text):
        written = match.group()
        read = seen.get(written)
        if read is None:
            read = seen[written] = _decoded(written)
        if read != written:
            start, end = match.span()
            append((start, end, read))
    return pieces


def _decoded(written: str) -> str:
    """What a reader reads for one match of ``_DECODE``."""
    first = written[0]
    if first == "%":
        return bytes.fromhex(written.replace("%", "")).decode("utf-8", "replace")
    if first == "\\":
        return _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), written)
    if first == "&" and len(written) > 1:
        return html.unescape(written)
    return unicodedata.normalize("NFKC", written.translate(_INVISIBLE)).translate(_FOLDS)


def _obfuscated_pieces(text: str) -> list[Piece]:
    if _HINT.search(text) is None:
        return []
    pieces: list[Piece] = []
    for match in _OBFUSCATED.finditer(text):
        local, at, domain = match.groups()
        plain_domain = _OBFUSCATED_DOT.sub(".", domain)
        if "@" not in at and not any(c in at for c in "[({<") and plain_domain == domain:
            continue  # "look at example.com": a bare "at" counts only with a written "dot"
        pieces.append((match.start(), match.end(), f"{local}@{plain_domain}"))
    return pieces


def _glued(text: str) -> list[Piece]:
    """Spaces to insert between a word and a run of 8 digits glued to it (one pass)."""
    if text.isdigit():
        return []
    pieces: list[Piece] = []
    for match in _GLUE.finditer(text):
        place = match.end()
        if match.end() - match.start() == 2 and text[place : place + 2].isdigit():
            continue  # two letters and two digits: an IBAN's country and check digits
        before = text[max(0, place - 64) : place]
        after = text[place : place + 64]
        word = (
            before[len(before.rstrip(_WORD_CHARS)) :]
            + after[: len(after) - len(after.lstrip(_WORD_CHARS))]
        )
        if len(word) >= 12 and _HEX_WORD.fullmatch(word):
            continue  # inside a hex word (a hash, a UUID)
        at = text.find("@", place, place + 40)
        if at >= 0 and " " not in text[place:at]:
            continue  # an e-mail address's local part
        if not pieces or pieces[-1][0] != place:
            pieces.append((place, place, " "))
    return pieces


def _step(previous: Folded | None, text: str, pieces: list[Piece]) -> Folded:
    """``text`` rewritten by ``pieces`` (sorted, disjoint), after ``previous``'s steps.

    Costs time in the number of pieces, not the text's length (beyond the join).
    """
    out: list[str] = []
    step = StepMap()
    last = at = 0
    for start, end, read in pieces:
        if start > last:
            out.append(text[last:start])
            step.add(at, last, start, True)
            at += start - last
        out.append(read)
        if read:
            step.add(at, start, end, len(read) == end - start)
            at += len(read)
        last = end
    if last < len(text) or not step.out_starts:
        out.append(text[last:])
        step.add(at, last, len(text), True)
    steps = (step,) if previous is None else (*previous.steps, step)
    return Folded("".join(out), steps)
