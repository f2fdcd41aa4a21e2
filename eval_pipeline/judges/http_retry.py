"""Retrying one request of the HTTP judge: what is transient, how long to wait, when to stop.

Timeouts, connection errors, 429 and 5xx answers and replies that are not a valid verdict are
retried (tenacity) with exponential backoff and seeded jitter; other client errors (400, 401,
404, ...) fail at once. A 429 or 503 is the endpoint asking for less: its ``Retry-After`` (or
``retry-after-ms``) is waited at least, the judge's ``RequestGate`` lowers its concurrency, and
such answers get their own, larger attempt budget (``rate_limit_attempts``), so a build that
meets a provider's limit slows down instead of losing scores. When the attempts are used up the
request raises ``JudgeError`` and its row becomes ``error``; the other requests go on.
"""

import email.utils
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from eval_pipeline.judges.limits import RequestGate
from eval_pipeline.judges.protocol import JudgeError
from eval_pipeline.judges.verdict_parsing import VerdictFormatError

_T = TypeVar("_T")


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts per request (rate-limit answers apart), and the backoff between them (seconds)."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0
    jitter: float = 0.25
    rate_limit_attempts: int = 12

    def delay(self, retry: int, rng: random.Random) -> float:
        """Delay before retry number ``retry`` (0-based): base * 2**retry, capped, plus jitter."""
        raw = min(self.max_delay, self.base_delay * (2**retry))
        return float(raw * (1.0 + self.jitter * rng.random()))


@dataclass
class HttpJudgeStats:
    """Counters: requests sent, retries, failures, rate-limit answers, the delays slept."""

    requests: int = 0
    retries: int = 0
    failures: int = 0
    rate_limited: int = 0
    json_object_fallbacks: int = 0
    delays: list[float] = field(default_factory=list)


def retry_after(exc: BaseException | None) -> float | None:
    """Seconds the endpoint asked to wait (``retry-after-ms``, ``Retry-After``), if it did."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    raw = headers.get("retry-after")
    try:
        if millis is not None:
            return max(0.0, float(millis) / 1000.0)
        if raw is not None:
            return max(0.0, float(raw))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(raw) if raw else None
        if parsed is not None:
            return max(0.0, parsed.timestamp() - time.time())
    return None


def is_rate_limit(exc: BaseException | None) -> bool:
    """A 429, or a 503 (an overloaded endpoint): answers that ask the client for less."""
    return getattr(exc, "status_code", None) in (429, 503)


class Retrier:
    """Runs a judge's requests under its retry policy and its ``RequestGate``."""

    def __init__(
        self,
        policy: RetryPolicy,
        gate: RequestGate,
        stats: HttpJudgeStats,
        *,
        seed: int,
        sleep: Callable[[float], None],
        name: str,
    ) -> None:
        self.policy = policy
        self.gate = gate
        self.stats = stats
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._sleep = sleep
        self._name = name

    def count(self, **steps: int) -> None:
        """Add to the stats' counters (thread-safe)."""
        with self._lock:
            for key, step in steps.items():
                setattr(self.stats, key, getattr(self.stats, key) + step)

    def run(self, attempt: Callable[[], _T], tokens: int) -> _T:
        """``attempt()`` until it answers, within the policy (see the module docstring).

        Raises:
            JudgeError: a non-retryable client error, or every attempt failed.
        """
        import openai
        from tenacity import RetryCallState, RetryError, Retrying
        from tenacity import retry_if_exception_type as retry_on

        transient = (
            openai.APITimeoutError,
            openai.APIConnectionError,
            openai.RateLimitError,
            openai.InternalServerError,
            VerdictFormatError,
        )

        def budget(state: RetryCallState) -> int:
            failed = state.outcome.exception() if state.outcome else None
            policy = self.policy
            return policy.rate_limit_attempts if is_rate_limit(failed) else policy.max_attempts

        def stop(state: RetryCallState) -> bool:
            return state.attempt_number >= budget(state)

        def wait(state: RetryCallState) -> float:
            if stop(state):
                return 0.0  # no retry follows: keep the seeded jitter sequence unchanged
            with self._lock:
                backoff = self.policy.delay(state.attempt_number - 1, self._rng)
            failed = state.outcome.exception() if state.outcome else None
            return max(backoff, retry_after(failed) or 0.0)

        def count(state: RetryCallState) -> None:
            with self._lock:
                self.stats.retries += 1
                self.stats.delays.append(float(state.upcoming_sleep))

        retrying = Retrying(
            stop=stop, wait=wait, retry=retry_on(transient), before_sleep=count, sleep=self._sleep
        )
        try:
            for step in retrying:
                with step:
                    return self._once(attempt, tokens)
        except openai.APIStatusError as exc:
            self.count(failures=1)
            raise JudgeError(f"{self._name}: HTTP {exc.status_code}: {exc.message}") from exc
        except RetryError as exc:
            last = exc.last_attempt.exception()
            self.count(failures=1)
            raise JudgeError(
                f"{self._name}: gave up after {exc.last_attempt.attempt_number} attempts; "
                f"last error: {type(last).__name__}: {last}"
            ) from last
        raise AssertionError("tenacity ended without an outcome")  # pragma: no cover

    def _once(self, attempt: Callable[[], _T], tokens: int) -> _T:
        with self.gate.admitted(tokens):
            try:
                answer = attempt()
            except Exception as exc:
                if is_rate_limit(exc):
                    self.count(rate_limited=1)
                    self.gate.rate_limited(retry_after(exc))
                raise
        self.gate.succeeded()
        return answer
