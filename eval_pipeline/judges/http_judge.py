"""A judge behind any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp).

Ollama and hosted services work the same way. The rendered rubric prompt goes out as the user
message, with the verdict's JSON schema as structured output (``response_format`` of type
``json_schema``). A server that rejects that (HTTP 400) is asked again with ``json_object``,
and the judge keeps to ``json_object`` once such a retry is answered (a 400 that the retry gets
too is that request's own error, not the server's format support); every reply is validated
locally against the schema. Retries and their limits are ``judges.http_retry``'s; every request
goes through the judge's ``RequestGate`` (``judges.limits``: in flight, per minute, after 429s),
so all who share the judge share its limits.

``complete`` answers a library metric's own prompt (``judges.completion``) over the same client,
retry policy and concurrency limit, so DeepEval and RAGAS metrics reach the model only through
this judge (and the cache around it).

With a ``CallRecorder`` given (``record_calls``: a scoring job's ``judges.judge_trace``), every
request sent (each attempt, answered or not) is recorded as a ``chat`` span; a verdict carries the
names of its requests (``JudgeVerdict.calls``), a completion notes them for the library metric
that asked (``call_refs.note``), and a ``JudgeError`` carries them too (``JudgeError.calls``).
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from eval_pipeline import json_input
from eval_pipeline.judges.call_refs import note
from eval_pipeline.judges.call_spans import CallRecorder, ChatCall
from eval_pipeline.judges.completion import CompletionRequest
from eval_pipeline.judges.http_retry import HttpJudgeStats, Retrier, RetryPolicy
from eval_pipeline.judges.limits import JudgeLimits, RequestGate, estimated_tokens
from eval_pipeline.judges.protocol import JudgeError, JudgeFingerprint, JudgeRequest, JudgeVerdict
from eval_pipeline.judges.rubrics import latest_version
from eval_pipeline.judges.verdict_parsing import FENCE, VerdictFormatError, parse_verdict

__all__ = ["BACKEND", "HttpJudge", "HttpJudgeStats", "RetryPolicy"]

BACKEND = "openai-compatible"
SYSTEM_PROMPT = (
    "You are a strict, consistent evaluator. Follow the rubric exactly and answer with one JSON "
    "object matching the given schema, nothing else."
)


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
        limits: JudgeLimits | None = None,
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
        self.limits = limits or JudgeLimits()
        self.gate = RequestGate(self.limits)
        self.stats = HttpJudgeStats()
        self._retrier = Retrier(
            self.retry,
            self.gate,
            self.stats,
            seed=seed,
            sleep=sleep,
            name=f"judge {model} at {base_url}",
        )
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._json_schema_supported = True
        self._recorder: CallRecorder | None = None

    def record_calls(self, recorder: CallRecorder | None) -> None:
        """Record every request sent from now on into ``recorder`` (None: stop recording)."""
        self._recorder = recorder

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
                # The client loads its resources on first use: load them now, outside the
                # gate's slots, so the first paced requests are not held back and then sent
                # in a burst.
                _ = self._client.chat.completions.create
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
        self._openai()  # built before the gate paces the first request, not inside its slot
        sent = _Sent([], request.rubric_id or request.task)
        try:
            verdict = self._retrier.run(
                lambda: self._attempt(request, sent), self._tokens(request.prompt)
            )
        except JudgeError as exc:
            exc.calls = tuple(sent.calls)
            raise
        return replace(verdict, calls=tuple(sent.calls))

    def complete(self, request: CompletionRequest) -> str:
        """The model's reply to a library metric's prompt, retried like a verdict.

        The prompt goes out unchanged as the only (user) message, as the library's own client
        would send it, with the reply's schema as structured output; a reply that is not JSON
        is retried. The caller validates it against its reply model.

        Raises:
            JudgeError: a non-retryable client error, or every attempt failed.
        """
        self._openai()
        sent = _Sent([], request.caller or "completion")
        try:
            return self._retrier.run(
                lambda: self._complete_once(request, sent), self._tokens(request.prompt)
            )
        except JudgeError as exc:
            exc.calls = tuple(sent.calls)
            raise
        finally:
            note(sent.calls)  # for the library metric asking (``call_refs.collecting``)

    def _tokens(self, prompt: str) -> int:
        return estimated_tokens(len(SYSTEM_PROMPT) + len(prompt), self.max_tokens)

    def _complete_once(self, request: CompletionRequest, sent: "_Sent") -> str:
        messages = [{"role": "user", "content": request.prompt}]
        if request.schema is None:
            return self._complete(messages, None, sent)
        content = self._structured(messages, _completion_format(request), sent)
        try:
            json_input.loads(_unfenced(content))
        except ValueError as exc:
            raise VerdictFormatError(
                f"reply to {request.caller or 'a library prompt'} is not JSON: {exc}; "
                f"reply starts {content[:80]!r}"
            ) from exc
        return _unfenced(content)

    def _structured(
        self, messages: list[dict[str, str]], json_schema: dict[str, Any], sent: "_Sent"
    ) -> str:
        """A reply in ``json_schema`` mode, or ``json_object`` on servers that refuse it."""
        import openai

        if not self._json_schema_supported:
            return self._complete(messages, {"type": "json_object"}, sent)
        try:
            return self._complete(messages, json_schema, sent)
        except openai.BadRequestError:
            # Servers without json_schema support answer 400; json_object plus our own
            # validation is the portable fallback. Only an answered retry says that was the
            # cause: a 400 the retry gets too is this request's error, raised from here.
            reply = self._complete(messages, {"type": "json_object"}, sent)
        with self._client_lock:
            if self._json_schema_supported:
                self._json_schema_supported = False
                self._retrier.count(json_object_fallbacks=1)
        return reply

    def _attempt(self, request: JudgeRequest, sent: "_Sent") -> JudgeVerdict:
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": request.prompt},
        ]
        return parse_verdict(
            self._structured(messages, _json_schema_format(request), sent), request.schema
        )

    def _complete(
        self,
        messages: list[dict[str, str]],
        response_format: dict[str, Any] | None,
        sent: "_Sent",
    ) -> str:
        self._retrier.count(requests=1)
        extra = {"response_format": response_format} if response_format is not None else {}
        recorder = self._recorder
        start = time.time_ns()
        try:
            response = self._openai().chat.completions.create(
                model=self.model,
                messages=messages,
                temperature=self.temperature,
                max_tokens=self.max_tokens,
                **extra,
            )
        except Exception as exc:
            if recorder is not None:
                sent.calls.append(recorder.record(self._call(messages, sent, start, error=exc)))
            raise
        choice = response.choices[0] if response.choices else None
        content = str(choice.message.content or "") if choice is not None else None
        if recorder is not None:
            usage = getattr(response, "usage", None)
            call = self._call(
                messages,
                sent,
                start,
                reply=content,
                finish_reason=getattr(choice, "finish_reason", None),
                response_model=getattr(response, "model", None),
                input_tokens=getattr(usage, "prompt_tokens", None),
                output_tokens=getattr(usage, "completion_tokens", None),
            )
            sent.calls.append(recorder.record(call))
        if content is None:
            raise VerdictFormatError("the reply has no choices")
        return content

    def _call(
        self, messages: list[dict[str, str]], sent: "_Sent", start: int, **answer: Any
    ) -> ChatCall:
        """The record of one request sent at ``start`` (ns) and answered (or failed) now."""
        return ChatCall(
            model=self.model,
            messages=messages,
            start_ns=start,
            end_ns=time.time_ns(),
            base_url=self.base_url,
            caller=sent.caller,
            fingerprint=self.fingerprint.digest,
            parameters={"temperature": self.temperature, "max_tokens": self.max_tokens},
            **answer,
        )


@dataclass(frozen=True)
class _Sent:
    """Where the names of one judgement's requests go, and who asked (recorded on the span)."""

    calls: list[str]
    caller: str


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
