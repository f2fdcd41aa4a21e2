"""Session-scope detectors: signals only a whole conversation shows, run when it has ended.

The real-time plane keeps each live conversation's turns (``alerts.session_watch``) and, when
the session ends (its end marker, or the idle timeout past its last span), runs these on it.
A flag is placed on the turn that shows the problem (its trace and root span), so its alert
links to a trace like every other alert and is deduplicated the same way.
"""

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from eval_pipeline.realtime.detectors.config import DetectorConfig
from eval_pipeline.realtime.detectors.flag import Flag, Severity
from eval_pipeline.scoring.sessions.repeated_requests import (
    DEFAULT_MIN_WORDS,
    DEFAULT_THRESHOLD,
    repeats,
)
from eval_pipeline.traces.sessions.model import Session


@runtime_checkable
class SessionDetector(Protocol):
    """A bounded check over an ended session."""

    @property
    def id(self) -> str:
        """Detector id with a version (``repeated_question@1``)."""
        ...

    def detect_session(self, session: Session) -> list[Flag]:
        """Flags raised by the ended session (empty when it looks healthy)."""
        ...


@dataclass(frozen=True)
class RepeatedQuestionDetector:
    """The user asked the same thing ``times`` times or more in one session.

    Same rule as ``session.repeated_user_requests`` (normalised text, rapidfuzz ratio at least
    ``threshold``, requests of at least ``min_words`` words): one flag per request asked that
    often, placed on the turn where it was asked the ``times``-th time.
    """

    times: int = 3
    threshold: float = DEFAULT_THRESHOLD
    min_words: int = DEFAULT_MIN_WORDS
    id: str = "repeated_question@1"

    def detect_session(self, session: Session) -> list[Flag]:
        """One flag per request the user made at least ``times`` times."""
        texts = [(t.index, t.user_input) for t in session.turns if t.user_input]
        found = repeats(texts, threshold=self.threshold, min_words=self.min_words)
        asked: dict[int, list[int]] = {}
        origin: dict[int, int] = {}
        for repeat in found:
            first = origin.get(repeat.repeats_turn, repeat.repeats_turn)
            origin[repeat.turn] = first
            asked.setdefault(first, [first]).append(repeat.turn)
        turns = {t.index: t for t in session.turns}
        flags = []
        for first, numbers in sorted(asked.items()):
            if len(numbers) < self.times:
                continue
            place = turns[numbers[self.times - 1]]
            flags.append(
                Flag(
                    self.id,
                    Severity.WARNING,
                    place.trace_id,
                    f"session {session.session_id}: the user asked {len(numbers)} times "
                    f"(turns {', '.join(map(str, numbers))}): {turns[first].user_input!r:.120}",
                    (place.run.root_span_id,) if place.run.root_span_id else (),
                    {
                        "session_id": session.session_id,
                        "turns": numbers,
                        "trace_ids": [turns[n].trace_id for n in numbers],
                        "end_reason": session.end_reason,
                    },
                )
            )
        return flags


def default_session_detectors(config: DetectorConfig | None = None) -> tuple[SessionDetector, ...]:
    """Every built-in session detector, with the settings of ``config``."""
    settings = (config or DetectorConfig()).sessions
    return (RepeatedQuestionDetector(settings.repeated_question_times),)
