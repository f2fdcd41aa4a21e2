"""A scoring job's judge calls, recorded in memory as OTel GenAI ``chat`` spans of one trace.

The HTTP judge tells its ``CallRecorder`` about every request it sent (``ChatCall``: the model,
the messages as sent, the raw reply, the usage the endpoint reported, start and end, the error
if it failed) and gets back the call's name (``call_refs.call_ref``). The recorder is shared by
every thread of the job (judged metrics, library adapters, calibration), so it only appends
under a lock; the spans are built once, when the job stores them (``judge_trace``), in one batch.

The spans are given as an instrumentation would emit them, under the pinned convention's
attribute names (``traces.semconv``): ``gen_ai.operation.name`` = ``chat``, the request model,
``gen_ai.usage.*``, the rendered prompt as ``gen_ai.input.messages`` and the reply as
``gen_ai.output.messages`` (JSON, the GenAI message form). Ingest normalises, redacts and stores
them like any other span. Every chat span is a child of the job's root span (``score <build>``).
"""

import json
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from eval_pipeline.judges.call_refs import call_ref
from eval_pipeline.traces import semconv
from eval_pipeline.traces.model import Operation, Span, StatusCode

JUDGE_SCOPE = "eval_pipeline.judges"
"""Instrumentation scope name of judge spans."""
CALLER = "eval_pipeline.judge.caller"
FINGERPRINT = "eval_pipeline.judge.fingerprint"
JOB_BUILD = "eval_pipeline.judge.build"


@dataclass(frozen=True)
class ChatCall:
    """One request a judge sent to its endpoint, and what came back (``reply`` None: failed)."""

    model: str
    messages: Sequence[Mapping[str, str]]
    start_ns: int
    end_ns: int
    reply: str | None = None
    finish_reason: str | None = None
    response_model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    error: BaseException | None = None
    base_url: str | None = None
    caller: str = ""
    fingerprint: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)


def _messages(messages: Sequence[Mapping[str, str]]) -> str:
    return json.dumps(
        [
            {"role": m["role"], "parts": [{"type": "text", "content": m["content"]}]}
            for m in messages
        ],
        ensure_ascii=False,
    )


def _server(base_url: str | None) -> dict[str, Any]:
    if not base_url:
        return {}
    parts = urlsplit(base_url)
    found: dict[str, Any] = {"server.address": parts.hostname or base_url}
    if parts.port is not None:
        found["server.port"] = parts.port
    return found


class CallRecorder:
    """The judge calls of one scoring job (see the module docstring); thread-safe."""

    def __init__(self, build: str) -> None:
        self.build = build
        self.trace_id = secrets.token_hex(16)
        self._root = secrets.token_hex(8)
        self._start = time.time_ns()
        self._lock = threading.Lock()
        self._spans: list[Span] = []
        self._tokens = [0, 0]

    def record(self, call: ChatCall) -> str:
        """Keep ``call`` as a chat span of the job's trace; the call's name."""
        span = self._span(call, secrets.token_hex(8))
        with self._lock:
            self._spans.append(span)
            self._tokens[0] += call.input_tokens or 0
            self._tokens[1] += call.output_tokens or 0
        return call_ref(self.trace_id, span.span_id)

    @property
    def calls(self) -> int:
        """Requests recorded so far."""
        with self._lock:
            return len(self._spans)

    @property
    def tokens(self) -> tuple[int, int]:
        """(input, output) tokens the endpoint reported over the calls recorded so far."""
        with self._lock:
            return self._tokens[0], self._tokens[1]

    def spans(self) -> list[Span]:
        """The job's root span and every chat span recorded, in the order they were recorded."""
        with self._lock:
            chats = list(self._spans)
        end = max([time.time_ns(), *(s.end_time_unix_nano for s in chats)])
        root = Span(
            trace_id=self.trace_id,
            span_id=self._root,
            parent_span_id=None,
            name=f"score {self.build}",
            start_time_unix_nano=self._start,
            end_time_unix_nano=end,
            status_code=StatusCode.OK,
            attributes={
                semconv.OPERATION_NAME: Operation.INVOKE_WORKFLOW,
                JOB_BUILD: self.build,
                "eval_pipeline.judge.calls": len(chats),
            },
            scope_name=JUDGE_SCOPE,
        )
        return [root, *chats]

    def _span(self, call: ChatCall, span_id: str) -> Span:
        attributes: dict[str, Any] = {
            semconv.OPERATION_NAME: Operation.CHAT,
            semconv.PROVIDER_NAME: "openai",
            semconv.REQUEST_MODEL: call.model,
            semconv.INPUT_MESSAGES: _messages(call.messages),
            CALLER: call.caller,
            FINGERPRINT: call.fingerprint,
            **{f"gen_ai.request.{k}": v for k, v in call.parameters.items()},
            **_server(call.base_url),
        }
        if call.response_model:
            attributes[semconv.RESPONSE_MODEL] = call.response_model
        if call.input_tokens is not None:
            attributes[semconv.USAGE_INPUT_TOKENS] = call.input_tokens
        if call.output_tokens is not None:
            attributes[semconv.USAGE_OUTPUT_TOKENS] = call.output_tokens
        if call.reply is not None:
            reply: dict[str, Any] = {
                "role": "assistant",
                "parts": [{"type": "text", "content": call.reply}],
            }
            if call.finish_reason:
                reply["finish_reason"] = call.finish_reason
                attributes["gen_ai.response.finish_reasons"] = [call.finish_reason]
            attributes[semconv.OUTPUT_MESSAGES] = json.dumps([reply], ensure_ascii=False)
        status, message = StatusCode.OK, None
        if call.error is not None:
            status, message = StatusCode.ERROR, f"{type(call.error).__name__}: {call.error}"
            attributes[semconv.ERROR_TYPE] = str(
                getattr(call.error, "status_code", None) or type(call.error).__name__
            )
        return Span(
            trace_id=self.trace_id,
            span_id=span_id,
            parent_span_id=self._root,
            name=f"{Operation.CHAT} {call.model}",
            kind="client",
            start_time_unix_nano=call.start_ns,
            end_time_unix_nano=max(call.end_ns, call.start_ns),
            status_code=status,
            status_message=message[:500] if message else None,
            attributes=attributes,
            scope_name=JUDGE_SCOPE,
        )
