r"""The one pass over a long text for all recognizers: which parts each must scan.

The exact patterns (``recognizers.yaml``) need lookarounds, so where their matches are dense
or the text is not ASCII they run on Python's backtracking engine (``engines``), which tries
every start position: 15-60 ms per pattern on 1 MB, even where nothing matches, and on a 1 MB
run of digits or ``%`` far more. This gate runs the
recognizers' *candidate* patterns together on RE2 (``google-re2``: a finite-automaton engine,
linear in its input; ``re2.Set`` runs them in one pass and says which matched) over fixed
chunks of the text. Each candidate pattern is a superset of its recognizer's exact pattern
(lookarounds become consumed boundary characters, ``^`` or a character the lookaround allows),
so a chunk in which a recognizer's candidate does not occur holds no match of it, and each
recognizer scans only the chunks hot for it: nothing, on clean text and hostile runs.

Why chunks and margins give the same result as scanning the whole text: every exact match is
shorter than ``MARGIN``, so a match overlapping a chunk lies, with its context, inside that
chunk widened by ``MARGIN`` on each side; the candidate search runs on that widened window,
so every chunk a match overlaps is hot. A run of hot chunks is scanned from its first
character (lookbehinds still see the text before it) to ``MARGIN`` past its end (lookaheads
see real characters), and only matches starting inside the run are kept. Two runs are at least
a chunk apart, farther than any match reaches, so a recognizer's matches in one run never
depend on those in another.

Candidates read digits and letters as ASCII: a text holding digits of other scripts (which
Python's ``\d`` matches) is scanned whole (``holds_other_digits``).
"""

import re
from functools import lru_cache

import re2

from eval_pipeline.traces.redact.catalogue import Recognizer
from eval_pipeline.traces.redact.engines import Spans

MARGIN = 1024
"""Characters of context around a chunk: more than the longest exact match (665, an email)."""

CHUNK = 8192
"""Characters per gated chunk (texts this short or shorter are scanned whole)."""

_OTHER_DIGIT = re.compile(r"[^\D0-9]")


def holds_other_digits(text: str) -> bool:
    """True when ``text`` has digits the candidates do not see (not ASCII ``0-9``)."""
    return not text.isascii() and _OTHER_DIGIT.search(text) is not None


@lru_cache(maxsize=32)
def _candidate_set(candidates: tuple[str, ...]) -> "re2.Set":
    options = re2.Options()
    options.max_mem = 64 << 20  # room for the automaton's states: below it RE2 falls back to
    options.log_errors = False  # its slower (still linear) simulation, and logs each time
    found = re2.Set.SearchSet(options)
    for pattern in candidates:
        found.Add(pattern)
    found.Compile()
    return found


class Gate:
    """Finds the spans of a text each recognizer must scan (see the module docstring)."""

    def __init__(
        self,
        recognizers: tuple[Recognizer, ...],
        chunk: int = CHUNK,
        margin: int = MARGIN,
    ) -> None:
        self.chunk = chunk
        self.margin = margin
        self._names = tuple(r.name for r in recognizers)
        self._set = _candidate_set(tuple(r.candidate for r in recognizers))

    def which(self, text: str) -> frozenset[str]:
        """The names of the recognizers whose candidate occurs in ``text`` (one RE2 pass).

        Only these can match in ``text`` (every candidate is a superset of its pattern).
        """
        found = self._set.Match(text)
        return frozenset(self._names[index] for index in found) if found else frozenset()

    def hot_spans(self, text: str) -> dict[str, Spans]:
        """Per recognizer name, ``(start, keep_end, scan_end)`` per run of chunks hot for it.

        Scan ``text[start:scan_end]`` and keep the matches that start before ``keep_end``. A
        name missing: that recognizer cannot match anywhere in ``text``; an empty result:
        ``text`` holds no personal data.
        """
        chunk, margin, size = self.chunk, self.margin, len(text)
        match = self._set.Match
        hot: dict[str, Spans] = {}
        for start in range(0, size, chunk):
            end = min(start + chunk, size)
            for index in match(text[max(0, start - margin) : end + margin]) or ():
                spans = hot.setdefault(self._names[index], [])
                if spans and spans[-1][1] == start:  # extends the previous run
                    spans[-1] = (spans[-1][0], end, min(end + margin, size))
                else:
                    spans.append((start, end, min(end + margin, size)))
        return hot
