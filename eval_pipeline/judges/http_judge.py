"""A judge behind any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp).

Ollama and hosted services work the same way. The rendered rubric prompt goes out as the user
message, with the verdict's JSON schema as structured output (``response_format`` of type
``json_schema``). A server that rejects that (HTTP 400) is asked again with ``json_object``;
every reply is validated locally against the schema. Timeouts, connection errors, 429/5xx and
replies that are not a valid verdict are retried with exponential backoff and seeded jitter;
other client errors (401, 404, ...) fail at once. When the attempts are used up the judge
raises ``JudgeError`` and the score becomes ``error``.
"""

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.judges.protocol import JudgeError, JudgeFingerprint, JudgeRequest, JudgeVerdict
from eval_pipeline.judges.rubrics import latest_version
from eval_pipeline.judges.verdict_parsing import VerdictFormatError, parse_verdict

BACKEND = "openai-compatible"
SYSTEM_PROMPT = (
    "You are a strict, consistent evaluator. Follow the rubric exactly and answer with one JSON "
    "object matching the given schema, nothing else."
)


@dataclass(frozen=True)
class RetryPolicy:
    """How many attempts, and the exponential backoff between them (seconds)."""

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0
    jitter: float = 0.25

    def delay(self, retry: int, rng: random.Random) -> float:
        """Delay before retry number ``retry`` (0-based): base * 2**retry, capped, plus jitter."""
        raw = min(self.max_delay, self.base_delay * (2**retry))
        return float(raw * (1.0 + self.jitter * rng.random()))


@dataclass
class HttpJudgeStats:
    """Counters: requests sent, retries, failures, and the backoff delays slept."""

    requests: int = 0
    retries: int = 0
    failures: int = 0
    json_object_fallbacks: int = 0
    delays: list[float] = field(default_factory=list)


class HttpJudge:
    """A judge over an OpenAI-compatible endpoint (see the module docstring)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        rubric_version: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 4,
        seed: int = 0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self._rubric_version = rubric_version or latest_version()
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._semaphore = threading.BoundedSemaphore(max_concurrency)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._sleep = sleep
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._json_schema_supported = True
        self.stats = HttpJudgeStats()

    @property
    def backend(self) -> str:
        """``openai-compatible``."""
        return BACKEND

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """Backend, model id, rubric set version and sampling parameters."""
        return JudgeFingerprint(
            backend=BACKEND,
            model=self.model,
            rubric_version=self._rubric_version,
            parameters={"temperature": self.temperature, "max_tokens": self.max_tokens},
        )

    def _openai(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self._api_key or "not-needed",
                    timeout=self.timeout,
                    max_retries=0,  # retries are ours: seeded jitter, and malformed replies count
                )
            return self._client

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """Ask the endpoint, retrying transient failures.

        Raises:
            JudgeError: a non-retryable client error, or every attempt failed.
        """
        import openai

        transient = (
            openai.APITimeoutError,
            openai.APIConnectionError,
            openai.RateLimitError,
            openai.InternalServerError,
            VerdictFormatError,
        )
        last: Exception | None = None
        for attempt in range(self.retry.max_attempts):
            if attempt:
                with self._lock:
                    delay = self.retry.delay(attempt - 1, self._rng)
                    self.stats.retries += 1
                    self.stats.delays.append(delay)
                self._sleep(delay)
            try:
                with self._semaphore:
                    return self._attempt(request)
            except transient as exc:
                last = exc
            except openai.APIStatusError as exc:
                with self._lock:
                    self.stats.failures += 1
                raise JudgeError(
                    f"judge {self.model} at {self.base_url}: HTTP {exc.status_code}: {exc.message}"
                ) from exc
        with self._lock:
            self.stats.failures += 1
        raise JudgeError(
            f"judge {self.model} at {self.base_url}: gave up after {self.retry.max_attempts} "
            f"attempts; last error: {type(last).__name__}: {last}"
        ) from last

    def _attempt(self, request: JudgeRequest) -> JudgeVerdict:
        import openai

        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": request.prompt},
        ]
        if self._json_schema_supported:
            try:
                content = self._complete(messages, _json_schema_format(request))
            except openai.BadRequestError:
                # Servers without json_schema support answer 400; json_object plus our own
                # validation is the portable fallback.
                self._json_schema_supported = False
                with self._lock:
                    self.stats.json_object_fallbacks += 1
                content = self._complete(messages, {"type": "json_object"})
        else:
            content = self._complete(messages, {"type": "json_object"})
        return parse_verdict(content, request.schema)

    def _complete(self, messages: list[dict[str, str]], response_format: dict[str, Any]) -> str:
        with self._lock:
            self.stats.requests += 1
        response = self._openai().chat.completions.create(
            model=self.model,
            messages=messages,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            response_format=response_format,
        )
        if not response.choices:
            raise VerdictFormatError("the reply has no choices")
        return str(response.choices[0].message.content or "")


def _json_schema_format(request: JudgeRequest) -> dict[str, Any]:
    name = (request.rubric_id or request.task or "verdict").replace("@", "_")
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": request.schema, "strict": True},
    }
