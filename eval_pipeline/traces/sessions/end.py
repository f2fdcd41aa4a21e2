"""When a session is over: an explicit end marker on a span, or an idle timeout.

The marker is the span attribute ``eval_pipeline.session.end`` (the project's private
namespace, ``traces.eval_context.NAMESPACE``), set on any span of a conversation's last turn
(its root ``invoke_agent`` span, usually) by the agent or the application when the
conversation is closed: ``true``, or a non-empty text saying why (``"resolved"``,
``"user_closed"``, ``"escalated"``). ``false``, ``""`` and other values do not end it.

Without a marker a session ends when no turn has been active for the idle timeout (default
``DEFAULT_IDLE_TIMEOUT_S``, 30 minutes; a suite sets ``sessions: {idle_timeout_s: ...}``, the
receiver ``serve --session-idle-s``), measured from the latest end of any of its spans to the
clock ``now`` the session is read at. Without a clock only the marker ends a session. A turn
arriving after the session was judged ended starts no new session in the store: read again,
the session holds it, and the idle clock runs from it (the live plane, which forgets a session
once judged, watches it anew: ``realtime.alerts.session_watch``).
"""

from collections.abc import Iterable
from typing import NamedTuple

from eval_pipeline.traces.eval_context import NAMESPACE
from eval_pipeline.traces.model import JsonValue, Span

SESSION_END = f"{NAMESPACE}.session.end"
"""The span attribute that ends a session (see the module docstring)."""
DEFAULT_IDLE_TIMEOUT_S = 1800.0
"""Idle time after which a session without a marker has ended (30 minutes)."""


class EndReason:
    """Why a session is over (``Session.end_reason``)."""

    MARKER = "marker"
    """A span of a turn carries the explicit end attribute (``end.SESSION_END``)."""
    IDLE = "idle"
    """No turn was active for the idle timeout, as of the clock the session was read at."""


class End(NamedTuple):
    """How a session ended: the reason (``EndReason``), the marker's text, when."""

    reason: str
    detail: str | None
    at_unix_nano: int


def marker_value(value: JsonValue) -> tuple[bool, str | None]:
    """Whether an end-attribute value ends the session, and its text (None for ``true``)."""
    if value is True:
        return True, None
    if isinstance(value, str) and value.strip() and value.strip().lower() != "false":
        text = value.strip()
        return True, None if text.lower() == "true" else text
    return False, None


def marked_end(spans: Iterable[Span]) -> End | None:
    """The earliest-ending span carrying the end marker, as an ``End`` (None without one)."""
    found: End | None = None
    for span in spans:
        if SESSION_END not in span.attributes:
            continue
        ends, detail = marker_value(span.attributes[SESSION_END])
        at = max(span.end_time_unix_nano, span.start_time_unix_nano)
        if ends and (found is None or at < found.at_unix_nano):
            found = End(EndReason.MARKER, detail, at)
    return found


def idle_end(
    last_activity_unix_nano: int, now_unix_nano: int | None, idle_timeout_s: float
) -> End | None:
    """The idle end when ``now`` is at least the timeout past the last activity, else None."""
    if now_unix_nano is None:
        return None
    at = last_activity_unix_nano + int(idle_timeout_s * 1e9)
    return End(EndReason.IDLE, None, at) if now_unix_nano >= at else None


def check_idle_timeout(value: float) -> float:
    """``value`` when it is a usable idle timeout in seconds.

    Raises:
        ValueError: not a positive number of seconds.
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(
            f"session idle timeout must be a positive number of seconds, got {value!r}"
        )
    return float(value)
