r"""Exact matches of a precise personal-data pattern, found by RE2 while they are sparse.

Python's ``re`` tries every start position of the text: 15-60 ms per pattern on 1 MB, even
where nothing matches, and the scanner runs six patterns. RE2 (``google-re2``) scans at
1-2 ms per MB, but each call from Python costs 1.5-4 us, so it loses where matches are dense
(one every few dozen characters). ``Pattern.find`` therefore asks RE2 for one match at a time
while matches are sparse and hands the rest of the text to ``re`` once they are dense.

Each pattern has an RE2 form giving exactly the matches of its Python form on ASCII text
(a property test checks it): RE2 has no lookarounds, so a lookbehind becomes a consumed
boundary (``(?:^|[^X])``) and a lookahead a consumed follower (``(?:$|[^X])``), with the match
itself in group 1. After a match ending at ``e`` the next search starts at ``e - 1``, so the
boundary character a lookbehind would look at is visible, and no match can start before
``e`` (the boundary is consumed at ``e - 1`` or later; ``^`` matches only at 0). Python's
``\w`` and ``\d`` are Unicode-aware, so texts that are not ASCII use ``re`` alone.
"""

import re
from collections.abc import Iterator

import re2
from re2 import _re2

Found = tuple[int, int, str]
"""A match: start, end and the matched text."""

Spans = list[tuple[int, int, int]]
"""``(start, keep_end, scan_end)`` runs of text to scan (``gate.Gate.hot_spans``)."""

RE2_FROM = 256
"""ASCII texts this long or longer are scanned with RE2 first (shorter: ``re`` costs less)."""

DENSE_AFTER = 32
"""Matches RE2 finds before their density is checked."""

DENSE_CHARS = 128
"""Characters per match below which matches are dense (``re`` is then the cheaper engine)."""

UNANCHORED = _re2.RE2.Anchor.UNANCHORED
"""RE2's unanchored search (``Match``'s first argument)."""


def _options() -> "re2.Options":
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the DFA states: below it RE2 falls back to its
    options.log_errors = False  # slower (still linear) simulation, and logs each time
    return options


def compile_re2(pattern: str) -> "_re2.RE2":
    """``pattern`` compiled by RE2 (for the scanner's ASCII text, given as bytes)."""
    return _re2.RE2(pattern.encode(), _options())


class Pattern:
    """One precise pattern in both engines (``python`` and its exact RE2 form, ``exact``)."""

    def __init__(self, python: re.Pattern[str], exact: str) -> None:
        self.python = python
        self.exact = compile_re2(exact)

    def find(self, text: str, data: bytes | None, spans: Spans | None) -> Iterator[Found]:
        """The matches of the Python pattern in ``text``, in order, as ``finditer`` finds them.

        ``data``: ``text`` encoded (ASCII only) when RE2 may be used, else None. ``spans``:
        the only runs to scan (None: all of ``text``), as ``gate.Gate.hot_spans`` gives them.
        """
        pos = 0 if spans is None else spans[0][0]
        if data is not None:
            size = len(data)
            stop = size if spans is None else spans[-1][1]
            # Two characters before the first hot chunk: the context of the lookbehinds (no
            # match starts in a cold chunk, so none is found there).
            pos = max(0, pos - 2)
            match = self.exact.Match
            first = -1
            count = 0
            while pos < stop:
                start, end = match(UNANCHORED, data, pos, size)[1]
                if start < 0 or start >= stop:
                    return
                yield start, end, text[start:end]
                count += 1
                if first < 0:
                    first = start
                elif count >= DENSE_AFTER and end - first < count * DENSE_CHARS:
                    pos = end
                    break  # dense: the rest is cheaper for ``re``
                pos = end - 1
            else:
                return
        yield from self._python(text, pos, spans)

    def _python(self, text: str, pos: int, spans: Spans | None) -> Iterator[Found]:
        finditer = self.python.finditer
        if spans is None:
            for found in finditer(text, pos):
                yield found.start(), found.end(), found.group()
            return
        for start, keep_end, scan_end in spans:
            if keep_end <= pos:
                continue
            for found in finditer(text, max(start, pos), scan_end):
                if found.start() >= keep_end:
                    break
                yield found.start(), found.end(), found.group()


def ascii_bytes(text: str) -> bytes | None:
    """``text`` as bytes when RE2 should scan it (ASCII, at least ``RE2_FROM`` long)."""
    return text.encode("ascii") if len(text) >= RE2_FROM and text.isascii() else None
