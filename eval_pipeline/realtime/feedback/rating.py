"""One piece of feedback, checked at the edge: a trace id and a rating on a known scale.

The scale: ``up`` or ``down``, or a score in [0, 1] (1 best). A score below
``NEGATIVE_BELOW`` counts as a thumbs-down (it opens a review, like ``down``). The HTTP endpoint
and the CLI both parse through here, so one input is accepted or refused the same way, with a
``FeedbackError`` naming the field at fault; the note is redacted here too (``redacted_note``).
"""

import math
import re
from dataclasses import dataclass
from datetime import datetime

from eval_pipeline.traces.redact.redactor import Redactor

NEGATIVE_BELOW = 0.5
"""A numeric rating under this is negative feedback (routes the trace to review)."""

_TRACE_ID = re.compile(r"[0-9a-f]{32}")
_WORDS = {"up": 1.0, "down": 0.0}


class FeedbackError(ValueError):
    """Feedback that cannot be accepted; the message names the field (``rating: ...``)."""


@dataclass(frozen=True)
class Rating:
    """A rating as given (``up``, ``down`` or the score's text) and its value in [0, 1]."""

    label: str
    score: float

    @property
    def negative(self) -> bool:
        """Whether this is a thumbs-down (a ``down``, or a score under ``NEGATIVE_BELOW``)."""
        return self.score < NEGATIVE_BELOW


def parse_rating(value: object) -> Rating:
    """``up``/``down`` (any case) or a number in [0, 1] (a JSON number or its text).

    Raises:
        FeedbackError: another word, a number outside [0, 1], NaN, a boolean or a non-scalar.
    """
    if isinstance(value, str) and value.strip().lower() in _WORDS:
        word = value.strip().lower()
        return Rating(word, _WORDS[word])
    score: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        score = float(value)
    elif isinstance(value, str):
        try:
            score = float(value)
        except ValueError:
            score = None
    if score is None or math.isnan(score):
        raise FeedbackError(f"rating: {value!r} is not up, down or a score in [0, 1]")
    if not 0.0 <= score <= 1.0:
        raise FeedbackError(f"rating: {value!r} is outside the scale: a score is in [0, 1]")
    return Rating(f"{score:g}", score)


def parse_trace_id(value: object) -> str:
    """A W3C/OTLP trace id: 32 hex digits, not all zero; returned lower-case.

    Raises:
        FeedbackError: not a string of 32 hex digits, or the all-zero (invalid) id.
    """
    text = value.strip().lower() if isinstance(value, str) else None
    if text is None or _TRACE_ID.fullmatch(text) is None:
        raise FeedbackError(f"trace_id: {value!r} is not a trace id (32 hex digits)")
    if text == "0" * 32:
        raise FeedbackError("trace_id: the all-zero trace id is invalid")
    return text


def optional_text(value: object, field: str, limit: int = 4000) -> str | None:
    """An optional string field (None when absent or blank); ``limit`` characters at most.

    Raises:
        FeedbackError: not a string, longer than ``limit``, or not text (a lone surrogate,
            which a JSON escape allows and no database column takes).
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise FeedbackError(f"{field}: expected a string, got {type(value).__name__}")
    if len(value) > limit:
        raise FeedbackError(f"{field}: longer than {limit} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise FeedbackError(
            f"{field}: not text: a lone surrogate at character {exc.start}"
        ) from None
    return value.strip() or None


def redacted_note(value: object, redactor: Redactor) -> str | None:
    """The free-text note (``optional_text``) with the personal data ``redactor`` finds replaced.

    People type e-mail addresses and card numbers into feedback: the note is stored as a span's
    text would be, through the product's redaction policy, never raw.
    """
    note = optional_text(value, "note")
    return None if note is None else redactor.scrub_text(note)


@dataclass(frozen=True)
class Feedback:
    """One rating of a trace, as stored: user and session ids only as pseudonyms."""

    trace_id: str
    rating: Rating
    received_at: datetime
    note: str | None = None
    user: str | None = None
    """The user id's pseudonym (``pseudonyms.pseudonym``), never the id itself."""
    session: str | None = None
    """The session id's pseudonym."""
    source: str = "http"
    """Where it came from: ``http`` (the receiver) or ``cli``."""
