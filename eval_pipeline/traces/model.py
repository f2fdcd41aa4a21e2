"""The normalised span and agent-run model (docs/DESIGN.md section 4, **contract**).

Every dialect and convention version is normalised onto these types at ingest; scorers,
detectors and the gate only ever see them. Types are frozen so a run can be shared between
scorers running concurrently.
"""

from dataclasses import dataclass, field
from typing import Any

JsonValue = Any
"""A JSON-compatible value (str, int, float, bool, None, list, dict)."""


class Operation:
    """Values of ``gen_ai.operation.name`` after normalisation (plus ``unknown``)."""

    INVOKE_AGENT = "invoke_agent"
    CREATE_AGENT = "create_agent"
    EXECUTE_TOOL = "execute_tool"
    CHAT = "chat"
    TEXT_COMPLETION = "text_completion"
    GENERATE_CONTENT = "generate_content"
    EMBEDDINGS = "embeddings"
    RETRIEVAL = "retrieval"
    INVOKE_WORKFLOW = "invoke_workflow"
    PLAN = "plan"
    HANDOFF = "handoff"
    UNKNOWN = "unknown"

    INFERENCE = frozenset({CHAT, TEXT_COMPLETION, GENERATE_CONTENT})


PINNED_OPERATIONS = frozenset(
    value for key, value in vars(Operation).items() if key.isupper() and isinstance(value, str)
)
"""Every operation name ``Operation`` pins (``unknown`` included)."""


class StatusCode:
    """OTLP span status codes, by name."""

    UNSET = "unset"
    OK = "ok"
    ERROR = "error"


@dataclass(frozen=True)
class SpanEvent:
    """A span event (name, time, attributes), kept as it arrived after normalisation."""

    name: str
    time_unix_nano: int
    attributes: dict[str, JsonValue] = field(default_factory=dict)


@dataclass(frozen=True)
class SpanLink:
    """A link to another span (OTLP ``Span.Link``): its ids, trace state and attributes.

    Links tie a span to spans of other traces (a batch job's inputs, a resumed run), so they
    are kept as they arrived; ids are lowercase hex like the span's own.
    """

    trace_id: str
    span_id: str
    trace_state: str | None = None
    attributes: dict[str, JsonValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Message:
    """One chat message in the GenAI structured form (role + typed parts).

    ``parts`` follow the GenAI JSON schema: ``{"type": "text", "content": ...}``,
    ``{"type": "tool_call", "id", "name", "arguments"}``,
    ``{"type": "tool_call_response", "id", "response"}``, and so on.
    """

    role: str
    parts: tuple[dict[str, JsonValue], ...] = ()
    name: str | None = None
    finish_reason: str | None = None

    @property
    def text(self) -> str:
        """The concatenated text parts of the message."""
        return "".join(str(p.get("content", "")) for p in self.parts if p.get("type") == "text")

    @property
    def tool_calls(self) -> tuple[dict[str, JsonValue], ...]:
        """The ``tool_call`` parts of the message, in order."""
        return tuple(p for p in self.parts if p.get("type") == "tool_call")


@dataclass(frozen=True)
class Span:
    """One normalised span. Ids are lowercase hex; times are Unix nanoseconds (UTC).

    ``attributes`` keeps every attribute not lifted into a field (unknown ones included),
    under its normalised name. ``dialect`` and ``convention_version`` record what the span
    arrived as (e.g. ``"otel-genai"`` / ``"1.36"``, ``"openinference"`` / ``"0.1"``); an OTel
    GenAI span's version is the one its ``schema_url`` names when it has one.

    ``links`` and ``trace_state`` (W3C ``tracestate``) are kept from OTLP as they arrived.
    ``schema_url`` is the instrumentation scope's schema URL, ``resource_schema_url`` the
    resource's (OTLP ``ScopeSpans.schema_url`` / ``ResourceSpans.schema_url``).
    """

    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: str = "internal"
    start_time_unix_nano: int = 0
    end_time_unix_nano: int = 0
    status_code: str = StatusCode.UNSET
    status_message: str | None = None
    operation: str = Operation.UNKNOWN
    agent_name: str | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    tool_arguments: JsonValue = None
    tool_result: JsonValue = None
    model: str | None = None
    provider: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    conversation_id: str | None = None
    input_messages: tuple[Message, ...] = ()
    output_messages: tuple[Message, ...] = ()
    attributes: dict[str, JsonValue] = field(default_factory=dict)
    events: tuple[SpanEvent, ...] = ()
    resource: dict[str, JsonValue] = field(default_factory=dict)
    scope_name: str | None = None
    dialect: str = "otel-genai"
    convention_version: str | None = None
    links: tuple[SpanLink, ...] = ()
    trace_state: str | None = None
    schema_url: str | None = None
    resource_schema_url: str | None = None

    @property
    def operation_category(self) -> str:
        """The pinned operation this span is (``operation`` itself), else ``unknown``.

        ``operation`` keeps a name the conventions do not pin verbatim (``rerank``, say).
        """
        return self.operation if self.operation in PINNED_OPERATIONS else Operation.UNKNOWN

    @property
    def duration_s(self) -> float:
        """Wall duration in seconds (0 when the end is unknown)."""
        if self.end_time_unix_nano <= self.start_time_unix_nano:
            return 0.0
        return (self.end_time_unix_nano - self.start_time_unix_nano) / 1e9

    @property
    def is_error(self) -> bool:
        """True when the span's status is error or it carries ``error.type``."""
        return self.status_code == StatusCode.ERROR or "error.type" in self.attributes


@dataclass(frozen=True)
class ToolCall:
    """One executed tool call, in execution order, from an ``execute_tool`` span.

    ``requested_by_span_id`` is the inference span whose output requested this call (matched
    by ``call_id``), when known.
    """

    name: str
    arguments: JsonValue
    result: JsonValue
    error: str | None
    span_id: str
    call_id: str | None = None
    agent_name: str | None = None
    requested_by_span_id: str | None = None
    start_time_unix_nano: int = 0
    end_time_unix_nano: int = 0

    @property
    def succeeded(self) -> bool:
        """True when the call returned without an error."""
        return self.error is None


@dataclass(frozen=True)
class ModelCall:
    """One inference (``chat`` and friends) span, reduced to what scorers and cost need."""

    span_id: str
    model: str | None
    provider: str | None
    input_tokens: int | None
    output_tokens: int | None
    input_messages: tuple[Message, ...]
    output_messages: tuple[Message, ...]
    requested_tool_calls: tuple[dict[str, JsonValue], ...]
    agent_name: str | None
    duration_s: float
    error: str | None = None


@dataclass(frozen=True)
class Handoff:
    """A hand-off: one agent (``from_agent``) passes control to another (``to_agent``).

    ``context`` is what the receiving agent was given (its input messages and the arguments of
    the hand-off call), flattened to text, so hand-off scorers can look for required entities.
    """

    from_agent: str | None
    to_agent: str
    span_id: str
    context: str = ""


@dataclass(frozen=True)
class RetrievedDocument:
    """A document returned by a ``retrieval`` span (or a retrieval-like tool)."""

    content: str
    span_id: str
    document_id: str | None = None
    score: float | None = None


@dataclass(frozen=True)
class EvalContext:
    """The evaluation context on a run's root span (see ``eval_context``); all optional."""

    build_id: str | None = None
    suite: str | None = None
    suite_version: str | None = None
    dataset: str | None = None
    dataset_version: str | None = None
    item_id: str | None = None
    run_index: int | None = None
    prompt_version: str | None = None


@dataclass(frozen=True)
class AgentRun:
    """One agent run: a trace as a span tree rooted at an ``invoke_agent`` span.

    The derived views (``tool_calls``, ``model_calls``, ``handoffs``, ``retrieved``,
    ``final_answer``) are computed once at assembly (``traces.assemble``) so scorers stay cheap.
    ``root_span_id`` is None when the trace has no ``invoke_agent`` root (then the run is
    incomplete, and ``completeness_reasons`` says why).
    """

    trace_id: str
    root_span_id: str | None
    spans: tuple[Span, ...]
    tool_calls: tuple[ToolCall, ...] = ()
    model_calls: tuple[ModelCall, ...] = ()
    handoffs: tuple[Handoff, ...] = ()
    retrieved: tuple[RetrievedDocument, ...] = ()
    user_input: str | None = None
    final_answer: str | None = None
    final_answer_span_id: str | None = None
    root_agent: str | None = None
    conversation_id: str | None = None
    eval_context: EvalContext = field(default_factory=EvalContext)
    start_time_unix_nano: int = 0
    end_time_unix_nano: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    complete: bool = True
    completeness_reasons: tuple[str, ...] = ()
    dialect: str = "otel-genai"
    error: str | None = None

    @property
    def duration_s(self) -> float:
        """Wall duration of the run in seconds."""
        if self.end_time_unix_nano <= self.start_time_unix_nano:
            return 0.0
        return (self.end_time_unix_nano - self.start_time_unix_nano) / 1e9

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the executed tool calls, in order."""
        return tuple(call.name for call in self.tool_calls)

    def span(self, span_id: str) -> Span | None:
        """The span with this id, or None."""
        for candidate in self.spans:
            if candidate.span_id == span_id:
                return candidate
        return None
