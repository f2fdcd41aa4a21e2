"""How long the span stream keeps messages: by age and by count, whichever is reached first.

The stream is a hand-off between the receiver and the planes, not a store (the trace store
keeps every span): the embedded log kept every message forever (204 MB of log beside 80 MB of
Parquet). ``Retention`` bounds it: messages older than ``max_age_s`` go, and so do the oldest
beyond ``max_messages``, for every consumer alike (as JetStream's limits do). A plane down for
longer than the age loses its place in those messages, never the spans: ``detect --build``
replays the detectors over the store.

The embedded log trims on publish, at most every ``trim_interval_s`` per publisher; JetStream
is given the same limits as ``max_age`` and ``max_msgs`` of its stream.
"""

from dataclasses import dataclass

DEFAULT_MAX_AGE_S = 24 * 3600.0
"""A day: the detectors read within seconds; a day covers an outage of the plane overnight."""
DEFAULT_MAX_MESSAGES = 1_000_000
"""About a day at 12 spans a second, a few hundred MB of log at most."""


@dataclass(frozen=True)
class Retention:
    """What the stream keeps: at most ``max_messages`` messages, none older than ``max_age_s``."""

    max_age_s: float = DEFAULT_MAX_AGE_S
    max_messages: int = DEFAULT_MAX_MESSAGES
    trim_interval_s: float = 10.0
    """The embedded log's publishers trim at most this often (each trim is one DELETE)."""

    def __post_init__(self) -> None:
        """Refuse limits that would keep nothing (or everything by accident)."""
        if not self.max_age_s > 0:
            raise ValueError(f"stream retention: max age must be positive, got {self.max_age_s}")
        if self.max_messages < 1:
            raise ValueError(
                f"stream retention: max messages must be at least 1, got {self.max_messages}"
            )
