"""Which parts of a long text the personal-data patterns need to scan: a linear-time gate.

The precise patterns (``pii``) need lookarounds, so they run on Python's backtracking engine,
which tries every start position: on a 1 MB run of digits or ``%`` that alone costs 20-40 ms
per pattern (on ASCII text ``scan`` runs them on RE2 while matches are sparse; where they are
dense, and on other text, ``re`` scans the hot spans found here). This gate runs one set of
*candidate* patterns on RE2 (``google-re2``: a finite-automaton engine, linear in its input,
no backtracking; ``re2.Set`` runs them in one pass and says which matched) over fixed chunks
of the text. Each candidate pattern is a
superset of its detector's precise pattern: lookarounds become consumed
boundary characters (``^`` or a character the lookaround allows; RE2 has no lookarounds),
bounded repetitions become unbounded ones where that keeps the automaton small. So a chunk in
which a detector's candidate does not occur holds no match of it, and each detector scans only
the chunks hot for it.

Why chunks and margins give the same result as scanning the whole text: every precise match
is shorter than ``MARGIN``, so a match overlapping a chunk lies, with its context, inside that
chunk widened by ``MARGIN`` on each side; the candidate search runs on that widened window,
so every chunk a match overlaps is hot. A run of hot chunks is scanned from its first
character (lookbehinds still see the text before it) to ``MARGIN`` past its end (lookaheads
see real characters), and only matches starting inside the run are kept.
"""

import re2

MARGIN = 1024
"""Characters of context around a chunk: more than the longest precise match (665, an email)."""

CHUNK = 8192
"""Characters per gated chunk (texts this short or shorter are scanned whole)."""

_LOCAL = r"[A-Za-z0-9._%+-]"
_D = r"\d"  # ASCII digits: a text with other digits is scanned whole (``pii``)
CANDIDATES = {
    # email: one local-part character, @, a label, a dot, then a name ending in 2 letters
    "email": rf"{_LOCAL}@[A-Za-z0-9-]+\.[A-Za-z0-9.-]*[A-Za-z][A-Za-z]",
    # card: 13-19 digits with single separators, not inside a word or a longer number
    "card": rf"(?:^|[^A-Za-z0-9_-]){_D}(?:[ .-]?{_D}){{12,18}}(?:$|[^A-Za-z0-9_-])",
    # IBAN: country, check digits, 11-30 characters, not inside a word
    "iban": rf"(?:^|[^A-Za-z0-9])[A-Za-z]{{2}}{_D}{{2}}(?: ?[A-Za-z0-9]){{11,30}}"
    r"(?:$|[^A-Za-z0-9])",
    "ssn": rf"(?:^|[^0-9]){_D}{{3}}-{_D}{{2}}-{_D}{{4}}(?:$|[^0-9])",
    # phone, hand-written forms: 4 to 23 digits with the separators phones are written with,
    # after an optional + (an international number: "+14155552671")
    "phone": rf"(?:^|[^A-Za-z0-9_+])\+?{_D}(?:[ ().-]{{0,3}}{_D}){{3,22}}(?:$|[^A-Za-z0-9_])",
    # phone, national forms for ``phones``: digits in 2 to 8 groups
    "grouped": rf"(?:^|[^A-Za-z0-9_+.-])[+(]?{_D}{{1,15}}(?:[ ().-]{{1,3}}{_D}{{1,15}}){{1,7}}"
    r"(?:$|[^A-Za-z0-9_])",
}
"""Candidate pattern by gate key (``pii.Detector.gate``): each a superset of its detector's."""
_KEYS = tuple(CANDIDATES)


def _compiled() -> "re2.Set":
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the automaton's states: below it RE2 falls back to
    options.log_errors = False  # its slower (still linear) simulation, and logs each time
    candidates = re2.Set.SearchSet(options)
    for pattern in CANDIDATES.values():
        candidates.Add(pattern)
    candidates.Compile()
    return candidates


_GATE = _compiled()

Spans = list[tuple[int, int, int]]
"""``(start, keep_end, scan_end)`` runs of hot chunks (see ``Gate.hot_spans``)."""


class Gate:
    """Finds the spans of a text the precise patterns must scan (see the module docstring)."""

    def __init__(self, chunk: int = CHUNK, margin: int = MARGIN) -> None:
        self.chunk = chunk
        self.margin = margin

    def may_match(self, text: str) -> bool:
        """False when no personal-data pattern can match anywhere in ``text``."""
        return _GATE.Match(text) is not None

    def hot_spans(self, text: str) -> dict[str, Spans]:
        """Per gate key, ``(start, keep_end, scan_end)`` per run of chunks hot for it.

        Scan ``text[start:scan_end]`` (``pattern.finditer(text, start, scan_end)``) and keep
        the matches that start before ``keep_end``. A key missing: its detector cannot match
        anywhere in ``text``; an empty result: ``text`` holds no personal data.
        """
        chunk, margin, size = self.chunk, self.margin, len(text)
        hot: dict[str, Spans] = {}
        for start in range(0, size, chunk):
            end = min(start + chunk, size)
            matched = _GATE.Match(text[max(0, start - margin) : end + margin])
            for index in matched or ():
                spans = hot.setdefault(_KEYS[index], [])
                if spans and spans[-1][1] == start:  # extends the previous run
                    spans[-1] = (spans[-1][0], end, min(end + margin, size))
                else:
                    spans.append((start, end, min(end + margin, size)))
        return hot
