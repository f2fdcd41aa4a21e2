"""``session.repeated_user_requests``: does the user have to ask for the same thing again?

Rule: each user turn's text is normalised (Unicode NFKC, lower case, punctuation removed
but ``#``, ``@`` and ``.``/``-`` inside words, blanks collapsed); a turn of at least
``min_words`` words repeats an earlier one when their normalised texts have a
``rapidfuzz.fuzz.ratio`` similarity of at least ``threshold`` (0-100, default 90: the same
request with a typo or other punctuation, not a follow-up). Short turns ("yes", "thanks, bye")
are replies, not requests, and are never repeats.
"""

import re
import unicodedata
from typing import Any, NamedTuple

from rapidfuzz import fuzz

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.protocol import Direction
from eval_pipeline.scoring.sessions.base import SessionScorerBase
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.sessions.model import Session

_PUNCTUATION = re.compile(r"[^\w\s#@.-]")
DEFAULT_THRESHOLD = 90.0
DEFAULT_MIN_WORDS = 3


def normalise(text: str) -> str:
    """The form user turns are compared in (see the module docstring)."""
    bare = _PUNCTUATION.sub(" ", unicodedata.normalize("NFKC", text).lower())
    words = (word.strip(".-") for word in bare.split())
    return " ".join(word for word in words if word.strip("#@"))


class Repeat(NamedTuple):
    """User turn ``turn`` repeats the earlier ``repeats_turn`` (1-based turn numbers)."""

    turn: int
    repeats_turn: int
    similarity: float


def repeats(
    texts: list[tuple[int, str]],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    min_words: int = DEFAULT_MIN_WORDS,
) -> list[Repeat]:
    """The repeated requests among ``(turn, user text)`` pairs, in turn order.

    Each repeating turn is listed once, against the most similar earlier request (the
    earliest of equally similar ones).
    """
    seen: list[tuple[int, str]] = []
    found = []
    for turn, text in texts:
        norm = normalise(text)
        if len(norm.split()) < min_words:
            continue
        best, origin = 0.0, 0
        for number, earlier in seen:  # the most similar earlier request; the first on a tie
            similarity = fuzz.ratio(norm, earlier)
            if similarity > best:
                best, origin = similarity, number
        if best >= threshold:
            found.append(Repeat(turn, origin, round(best, 1)))
        seen.append((turn, norm))
    return found


def most_asked(repeated: list[Repeat]) -> int:
    """How many times the most repeated request was made (1 when none is repeated)."""
    origin: dict[int, int] = {}
    counts: dict[int, int] = {}
    for repeat in repeated:
        first = origin.get(repeat.repeats_turn, repeat.repeats_turn)
        origin[repeat.turn] = first
        counts[first] = counts.get(first, 1) + 1
    return max(counts.values(), default=1)


class RepeatedUserRequests(SessionScorerBase):
    """Share of the user's later turns that repeat an earlier request (0 = never repeats).

    Range [0, 1], lower is better: repeated turns / (user turns with text - 1), a turn
    repeating when its normalised text is at least ``threshold`` similar (rapidfuzz ratio,
    0-100) to an earlier user turn of at least ``min_words`` words. Not applicable with fewer
    than two user turns. Evidence lists each repeat and how often the most repeated request
    was made.
    """

    metric_id = "session.repeated_user_requests"
    metric_direction = Direction.LOWER_IS_BETTER
    not_applicable_when = "the session has fewer than two user turns"
    run_fields = frozenset({"turns.user_input"})

    def __init__(
        self, threshold: float = DEFAULT_THRESHOLD, min_words: int = DEFAULT_MIN_WORDS
    ) -> None:
        if not 0 < threshold <= 100:
            raise ValueError(f"threshold must be in (0, 100], got {threshold!r}")
        if min_words < 1:
            raise ValueError(f"min_words must be at least 1, got {min_words!r}")
        self.threshold = float(threshold)
        self.min_words = int(min_words)

    @property
    def arguments(self) -> dict[str, Any]:
        """Arguments that differ from the defaults."""
        out: dict[str, Any] = {}
        if self.threshold != DEFAULT_THRESHOLD:
            out["threshold"] = self.threshold
        if self.min_words != DEFAULT_MIN_WORDS:
            out["min_words"] = self.min_words
        return out

    def session_verdict(self, session: Session, item: DatasetItem | None) -> Verdict:
        """Judge one session (see the class docstring)."""
        texts = [(t.index, t.user_input) for t in session.turns if t.user_input]
        if len(texts) < 2:
            return self.not_applicable("the session has fewer than two user turns")
        found = repeats(texts, threshold=self.threshold, min_words=self.min_words)
        evidence = {
            "repeats": [r._asdict() for r in found],
            "user_turns": len(texts),
            "most_asked": most_asked(found),
        }
        spans = [
            t.run.root_span_id or t.trace_id
            for t in session.turns
            if t.index in {r.turn for r in found}
        ]
        if not found:
            return self.scored(0.0, evidence=evidence, reason="no user request repeated")
        first = found[0]
        return self.scored(
            len(found) / (len(texts) - 1),
            evidence=evidence,
            span_ids=spans,
            reason=f"{len(found)} of {len(texts) - 1} later user turn(s) repeat an earlier "
            f"request, first: turn {first.turn} repeats turn {first.repeats_turn}",
        )
