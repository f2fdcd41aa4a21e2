r"""A recognizer's exact matches, found by RE2 while they are sparse and by ``re`` once dense.

The exact patterns (``recognizers.yaml``) are Python patterns: ``re`` tries every start
position, 15-60 ns per character even where nothing matches, but yields a dense run of matches
cheaply from C. RE2 (``google-re2``) skips text at 1-2 ns per character, but each call from
Python costs about a microsecond. So ``ExactPattern.spans`` asks RE2 for one match at a time
while matches are sparse, and once ``DENSE_AFTER`` of them came less than ``DENSE_CHARS``
characters apart on average, hands the rest of the text to ``re``.

A recognizer may carry an RE2 form of its pattern (``re2`` in the catalogue) that matches
exactly what the Python form matches on ASCII text (a property test holds them equal): RE2 has
no lookarounds, so a lookbehind becomes a consumed boundary (``(?:^|[^X])``) and a lookahead a
consumed follower (``(?:$|[^X])``), the match itself being group 1. After a match ending at
``e`` the next search starts at ``e - 1``: the boundary a lookbehind looks at stays visible,
and no match can start before ``e`` (a match's last character is never a boundary, and ``^``
matches only at 0). Python's ``\w`` and ``\d`` are Unicode-aware, so a text that is not ASCII
is scanned by ``re`` alone.
"""

import re
from bisect import bisect_left
from functools import lru_cache

import re2
from re2 import _re2

Span = tuple[int, int]
"""A match's start and end."""

Spans = list[tuple[int, int, int]]
"""``(start, keep_end, scan_end)`` runs of a text to scan (``gate.Gate.hot_spans``)."""

RE2_FROM = 256
"""ASCII texts this long or longer are searched with RE2 first (shorter: ``re`` costs less)."""

DENSE_AFTER = 32
"""Matches RE2 finds before their density is checked."""

DENSE_CHARS = 64
"""Characters per match below which matches are dense (``re`` is then the cheaper engine)."""

_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_SPAN = re.Match.span


def ascii_bytes(text: str) -> bytes | None:
    """``text`` as bytes when RE2 may search it (ASCII, at least ``RE2_FROM`` long)."""
    return text.encode("ascii") if len(text) >= RE2_FROM and text.isascii() else None


@lru_cache(maxsize=64)
def compile_re2(pattern: str) -> "_re2.RE2":
    """``pattern`` compiled by RE2, to search ASCII text given as bytes."""
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the automaton's states: below it RE2 falls back to
    options.log_errors = False  # its slower (still linear) simulation, and logs each time
    compiled = _re2.RE2(pattern.encode(), options)
    if not compiled.ok():
        raise ValueError(f"not an RE2 pattern: {pattern!r}")
    return compiled


def occurs(pattern: "_re2.RE2", data: bytes) -> bool:
    """True when ``pattern`` (``compile_re2``) matches somewhere in ``data``."""
    return bool(pattern.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0)


class ExactPattern:
    """One recognizer's exact pattern in ``re`` and, when it has one, its RE2 form."""

    def __init__(self, python: re.Pattern[str], re2_form: str | None) -> None:
        self.python = python
        self._re2 = None if re2_form is None else compile_re2(re2_form)

    def spans(self, text: str, data: bytes | None, hot: Spans | None) -> list[Span]:
        """The spans of ``python.finditer(text)``'s matches, in order, by either engine.

        ``data``: ``text`` encoded (``ascii_bytes``), None when only ``re`` may search it.
        ``hot``: the only runs of ``text`` to scan (``gate.Gate.hot_spans``); None: all of it.
        """
        found: list[Span] = []
        pos = 0 if hot is None else hot[0][0]
        if data is not None and self._re2 is not None:
            stop = len(data) if hot is None else hot[-1][1]
            pos = _while_sparse(self._re2, data, pos, stop, found)
            if pos < 0:
                return found
        finditer = self.python.finditer
        if hot is None:
            found += map(_SPAN, finditer(text, pos))
            return found
        for start, keep_end, scan_end in hot:
            if keep_end > pos:
                run = list(map(_SPAN, finditer(text, max(start, pos), scan_end)))
                found += run[: bisect_left(run, (keep_end,))]
        return found


def _while_sparse(pattern: "_re2.RE2", data: bytes, pos: int, stop: int, found: list[Span]) -> int:
    """Appends RE2's matches starting in ``[pos, stop)`` to ``found`` while they are sparse.

    Returns where ``re`` takes over once they are dense, or -1 when RE2 found them all.
    """
    match = pattern.Match
    size = len(data)
    pos = max(0, pos - 2)  # the context of a lookbehind (two characters at most)
    append = found.append
    first = -1
    start: int
    end: int
    while pos < stop:
        start, end = match(_UNANCHORED, data, pos, size)[1]
        if start < 0 or start >= stop:
            return -1
        append((start, end))
        if first < 0:
            first = start
        elif len(found) >= DENSE_AFTER and end - first < len(found) * DENSE_CHARS:
            return end  # dense: the rest is cheaper for ``re``
        pos = end - 1
    return -1
