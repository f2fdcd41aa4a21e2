"""A judge behind any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp).

Ollama and hosted services work the same way. The rendered rubric prompt goes out as the user
message, with the verdict's JSON schema as structured output (``response_format`` of type
``json_schema``). A server that rejects that (HTTP 400) is asked again with ``json_object``;
every reply is validated locally against the schema. Timeouts, connection errors, 429/5xx and
replies that are not a valid verdict are retried (tenacity) with exponential backoff and seeded
jitter; other client errors (401, 404, ...) fail at once. When the attempts are used up the
judge raises ``JudgeError`` and the score becomes ``error``.

``complete`` answers a library metric's own prompt (``judges.completion``) over the same client,
retry policy and concurrency limit, so DeepEval and RAGAS metrics reach the model only through
this judge (and the cache around it).
"""

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from eval_pipeline.judges.completion import CompletionRequest
from eval_pipeline.judges.protocol import JudgeError, JudgeFingerprint, JudgeRequest, JudgeVerdict
from eval_pipeline.judges.rubrics import latest_version
from eval_pipeline.judges.verdict_parsing import FENCE, VerdictFormatError, parse_verdict

_T = TypeVar("_T")

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

    @property
    def generative(self) -> bool:
        """True: the endpoint's model answers library prompts too (``complete``)."""
        return True

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """Ask the endpoint, retrying transient failures.

        Raises:
            JudgeError: a non-retryable client error, or every attempt failed.
        """
        return self._retrying(lambda: self._attempt(request))

    def complete(self, request: CompletionRequest) -> str:
        """The model's reply to a library metric's prompt, retried like a verdict.

        The prompt goes out unchanged as the only (user) message, as the library's own client
        would send it, with the reply's schema as structured output; a reply that is not JSON
        is retried. The caller validates it against its reply model.

        Raises:
            JudgeError: a non-retryable client error, or every attempt failed.
        """
        return self._retrying(lambda: self._complete_once(request))

    def _retrying(self, attempt: Callable[[], _T]) -> _T:
        """Run ``attempt`` under the retry policy (tenacity), counting retries and delays."""
        import openai
        from tenacity import RetryCallState, RetryError, Retrying, stop_after_attempt
        from tenacity import retry_if_exception_type as retry_on

        transient = (
            openai.APITimeoutError,
            openai.APIConnectionError,
            openai.RateLimitError,
            openai.InternalServerError,
            VerdictFormatError,
        )

        def wait(state: RetryCallState) -> float:
            if state.attempt_number >= self.retry.max_attempts:
                return 0.0  # no retry follows: keep the seeded jitter sequence unchanged
            with self._lock:
                return self.retry.delay(state.attempt_number - 1, self._rng)

        def count(state: RetryCallState) -> None:
            with self._lock:
                self.stats.retries += 1
                self.stats.delays.append(float(state.upcoming_sleep))

        retrying = Retrying(
            stop=stop_after_attempt(self.retry.max_attempts),
            wait=wait,
            retry=retry_on(transient),
            before_sleep=count,
            sleep=self._sleep,
        )
        try:
            for step in retrying:
                with step, self._semaphore:
                    return attempt()
        except openai.APIStatusError as exc:
            with self._lock:
                self.stats.failures += 1
            raise JudgeError(
                f"judge {self.model} at {self.base_url}: HTTP {exc.status_code}: {exc.message}"
            ) from exc
        except RetryError as exc:
            last = exc.last_attempt.exception()
            with self._lock:
                self.stats.failures += 1
            raise JudgeError(
                f"judge {self.model} at {self.base_url}: gave up after {self.retry.max_attempts} "
                f"attempts; last error: {type(last).__name__}: {last}"
            ) from last
        raise AssertionError("tenacity ended without an outcome")  # pragma: no cover

    def _complete_once(self, request: CompletionRequest) -> str:
        messages = [{"role": "user", "content": request.prompt}]
        if request.schema is None:
            return self._complete(messages, None)
        content = self._structured(messages, _completion_format(request))
        try:
            json.loads(_unfenced(content))
        except ValueError as exc:
            raise VerdictFormatError(
                f"reply to {request.caller or 'a library prompt'} is not JSON: {exc}; "
                f"reply starts {content[:80]!r}"
            ) from exc
        return _unfenced(content)

    def _structured(self, messages: list[dict[str, str]], json_schema: dict[str, Any]) -> str:
        """A reply in ``json_schema`` mode, or ``json_object`` on servers that refuse it."""
        import openai

        if self._json_schema_supported:
            try:
                return self._complete(messages, json_schema)
            except openai.BadRequestError:
                # Servers without json_schema support answer 400; json_object plus our own
                # validation is the portable fallback.
                self._json_schema_supported = False
                with self._lock:
                    self.stats.json_object_fallbacks += 1
        return self._complete(messages, {"type": "json_object"})

    def _attempt(self, request: JudgeRequest) -> JudgeVerdict:
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": request.prompt},
        ]
        return parse_verdict(
            self._structured(messages, _json_schema_format(request)), request.schema
        )

    def _complete(
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None
    ) -> str:
        with self._lock:
            self.stats.requests += 1
        extra = {"response_format": response_format} if response_format is not None else {}
        response = self._openai().chat.completions.create(
            model=self.model,
            messages=messages,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            **extra,
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


def _completion_format(request: CompletionRequest) -> dict[str, Any]:
    # Not strict: library reply models use optional fields and open objects that strict
    # structured output refuses; the caller validates the reply against its model.
    return {
        "type": "json_schema",
        "json_schema": {"name": request.schema_name[:64], "schema": request.schema},
    }


def _unfenced(content: str) -> str:
    fenced = FENCE.match(content)
    return fenced.group(1) if fenced else content
