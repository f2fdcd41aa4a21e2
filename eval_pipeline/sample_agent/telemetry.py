"""GenAI-convention spans for the sample agent, on a simulated clock.

The simulator does not sleep: each step advances a per-run clock by the latency it drew, and
spans are started and ended at those explicit times, so traces carry realistic durations while
a run takes milliseconds. A real-model run uses the same recorder with ``Clock.real()``.
Attribute names follow the OpenTelemetry GenAI conventions (``invoke_agent``, ``chat``,
``execute_tool``, ``retrieval``; structured messages as JSON strings).
"""

import json
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer


class Clock:
    """Nanosecond time that either follows the wall clock or is advanced by the simulator."""

    def __init__(self, start_ns: int | None = None, *, simulated: bool = True) -> None:
        self._now = start_ns if start_ns is not None else time.time_ns()
        self.simulated = simulated

    @classmethod
    def real(cls) -> "Clock":
        """A clock that reads the wall clock."""
        return cls(simulated=False)

    def now(self) -> int:
        """The current time in Unix nanoseconds."""
        return self._now if self.simulated else time.time_ns()

    def advance(self, seconds: float) -> None:
        """Move a simulated clock forward (no effect on a real one)."""
        if self.simulated:
            self._now += int(seconds * 1e9)


def as_json(value: Any) -> str:
    """Canonical JSON text for a span attribute."""
    return json.dumps(value, sort_keys=True, default=str)


class Recorder:
    """Starts and ends GenAI spans at the clock's times, as children of the current span."""

    def __init__(
        self, tracer: Tracer, clock: Clock, *, conversation_id: str, provider: str = "openai"
    ) -> None:
        self.tracer = tracer
        self.clock = clock
        self.conversation_id = conversation_id
        self.provider = provider

    @contextmanager
    def span(
        self,
        name: str,
        kind: SpanKind,
        attributes: Mapping[str, Any],
        parent: otel_context.Context | None = None,
    ) -> Iterator[Span]:
        """A span from now to whenever the block leaves the clock; an exception marks it error."""
        span = self.tracer.start_span(
            name,
            context=parent,
            kind=kind,
            attributes=dict(attributes),
            start_time=self.clock.now(),
        )
        token = otel_context.attach(trace.set_span_in_context(span, parent))
        try:
            yield span
        except Exception as exc:
            span.set_status(Status(StatusCode.ERROR, str(exc)))
            span.set_attribute("error.type", type(exc).__name__)
            raise
        finally:
            otel_context.detach(token)
            span.end(end_time=self.clock.now())

    def agent(
        self,
        agent_name: str,
        *,
        model: str,
        extra: Mapping[str, Any] | None = None,
        parent: otel_context.Context | None = None,
    ) -> Any:
        """An ``invoke_agent`` span."""
        return self.span(
            f"invoke_agent {agent_name}",
            SpanKind.INTERNAL,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": agent_name,
                "gen_ai.provider.name": self.provider,
                "gen_ai.request.model": model,
                "gen_ai.conversation.id": self.conversation_id,
                **(extra or {}),
            },
            parent,
        )

    def chat(
        self,
        span: Span,
        *,
        agent_name: str,
        model: str,
        inputs_json: str,
        outputs_json: str,
        input_tokens: int,
        output_tokens: int,
        finish_reason: str,
    ) -> None:
        """Fill a ``chat`` span's attributes (the span comes from ``chat_span``).

        The messages come as ``as_json`` text: the caller has encoded them already, the
        simulator to count their characters.
        """
        span.set_attributes(
            {
                "gen_ai.input.messages": inputs_json,
                "gen_ai.output.messages": outputs_json,
                "gen_ai.usage.input_tokens": input_tokens,
                "gen_ai.usage.output_tokens": output_tokens,
                "gen_ai.response.model": model,
                "gen_ai.response.finish_reasons": [finish_reason],
                "gen_ai.agent.name": agent_name,
            }
        )

    def chat_span(self, model: str) -> Any:
        """A ``chat`` span (attributes set later with ``chat``)."""
        return self.span(
            f"chat {model}",
            SpanKind.CLIENT,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": self.provider,
                "gen_ai.request.model": model,
                "gen_ai.conversation.id": self.conversation_id,
            },
        )

    def tool_span(
        self, name: str, call_id: str, arguments: Mapping[str, Any], agent_name: str
    ) -> Any:
        """An ``execute_tool`` span with the call's arguments."""
        return self.span(
            f"execute_tool {name}",
            SpanKind.INTERNAL,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.type": "function",
                "gen_ai.tool.call.arguments": as_json(arguments),
                "gen_ai.agent.name": agent_name,
                "gen_ai.conversation.id": self.conversation_id,
            },
        )

    def retrieval_span(self, index: str, query: str, documents: list[dict[str, Any]]) -> Any:
        """A ``retrieval`` span listing the retrieved documents."""
        return self.span(
            f"retrieval {index}",
            SpanKind.CLIENT,
            {
                "gen_ai.operation.name": "retrieval",
                "gen_ai.data_source.id": index,
                "gen_ai.retrieval.query.text": query,
                "gen_ai.retrieval.top_k": len(documents),
                "gen_ai.retrieval.documents": as_json(documents),
            },
        )


def tool_result_attribute(result: Any) -> str:
    """The ``gen_ai.tool.call.result`` value for a tool result."""
    return as_json(result)
