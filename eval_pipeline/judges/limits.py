"""How hard a judge's endpoint may be asked: in flight, per minute, and after a 429.

``JudgeLimits`` is what a suite's ``judge:`` block sets (``max_concurrency``,
``requests_per_minute``, ``tokens_per_minute``). ``RequestGate`` applies them to every request a
judge sends, whoever sends it (judged metrics, calibration, library adapters, all metrics and
runs of a build at once), so the limits hold for the judge as a whole:

* at most ``max_concurrency`` requests in flight;
* request starts paced so that no minute holds more than ``requests_per_minute`` of them, nor
  more than ``tokens_per_minute`` estimated tokens (a request counts its prompt at four
  characters a token plus its ``max_tokens``, as providers count a request against the limit
  before it is answered). Pacing is strict spacing (no burst), so every window respects it;
* after a rate-limit answer (429, 503) the concurrency is halved, at most once per cool-down
  (the ``Retry-After`` asked, else a second), and the level that was refused becomes a ceiling
  the gate climbs back towards one request at a time (one more after as many successes as
  requests allowed) but never reaches again: the endpoint's own limit is learnt, not re-probed
  on every request. A judge lives for one command or one Dagster step, so does what it learnt.
"""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

CHARS_PER_TOKEN = 4
DEFAULT_COOLDOWN_S = 1.0


@dataclass(frozen=True)
class JudgeLimits:
    """Requests in flight (at most), requests and tokens per minute (None: no limit)."""

    max_concurrency: int = 16
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None

    def __post_init__(self) -> None:
        if self.max_concurrency < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {self.max_concurrency}")
        for name in ("requests_per_minute", "tokens_per_minute"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")


def estimated_tokens(prompt_chars: int, max_tokens: int) -> int:
    """Tokens a request counts against a per-minute limit before it is answered."""
    return -(-prompt_chars // CHARS_PER_TOKEN) + max_tokens


class RequestGate:
    """Admits a judge's requests under its ``JudgeLimits`` (see the module docstring)."""

    def __init__(
        self,
        limits: JudgeLimits,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.limits = limits
        self._clock = clock
        self._sleep = sleep
        self._cond = threading.Condition()
        self._limit = limits.max_concurrency
        self._ceiling = limits.max_concurrency
        self._streak = 0
        self._calm_after = 0.0
        self._in_flight = 0
        self.max_in_flight = 0
        self._next_request = 0.0
        self._next_tokens = 0.0

    @property
    def limit(self) -> int:
        """Requests allowed in flight now (``max_concurrency`` until a rate-limit answer)."""
        with self._cond:
            return self._limit

    @contextmanager
    def admitted(self, tokens: int) -> Iterator[None]:
        """Hold one of the slots while the block sends a request of ``tokens`` tokens."""
        with self._cond:
            while self._in_flight >= self._limit:
                self._cond.wait()
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            wait = self._pace(tokens)
        try:
            if wait > 0:
                self._sleep(wait)
            yield
        finally:
            with self._cond:
                self._in_flight -= 1
                self._cond.notify_all()

    def _pace(self, tokens: int) -> float:
        """Seconds until this request may start; books its place (caller holds the lock)."""
        now = self._clock()
        start = max(now, self._next_request, self._next_tokens)
        rpm, tpm = self.limits.requests_per_minute, self.limits.tokens_per_minute
        if rpm is not None:
            self._next_request = start + 60.0 / rpm
        if tpm is not None:
            self._next_tokens = start + tokens * 60.0 / tpm
        return start - now

    def rate_limited(self, retry_after: float | None) -> None:
        """The endpoint answered 429/503: halve the concurrency, once per cool-down."""
        with self._cond:
            self._streak = 0
            now = self._clock()
            if now < self._calm_after:
                return
            self._calm_after = now + (retry_after or DEFAULT_COOLDOWN_S)
            self._ceiling = max(1, min(self._ceiling, self._limit - 1))
            self._limit = max(1, self._limit // 2)

    def succeeded(self) -> None:
        """A request was answered: climb one step back towards the ceiling after a full round."""
        with self._cond:
            if self._limit >= self._ceiling:
                return
            self._streak += 1
            if self._streak >= self._limit:
                self._streak = 0
                self._limit += 1
                self._cond.notify_all()
