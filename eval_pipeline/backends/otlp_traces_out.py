"""Stored spans out as OTLP trace requests, in the pinned GenAI conventions (1.41.0).

The inverse of normalisation for what the store holds: the lifted fields (operation, agent,
tool, call id, arguments and result, provider, tokens, conversation, messages) go back under
their GenAI attribute names, beside the attributes that were never lifted (the eval context
included), so whatever reads OTLP (Phoenix, Langfuse's OTLP endpoint, a collector, our own
receiver) gets the run as we hold it, and reading it back normalises to the same spans. Spans
are grouped by resource; ``extra_resource`` adds attributes a back end routes by (Phoenix's
``openinference.project.name``); ``display`` adds each span's input and output as
OpenInference ``input.value`` / ``output.value`` for trace UIs (``display_io``: Phoenix shows
"--" without them). Values the store already redacted stay redacted.
"""

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Status
from opentelemetry.proto.trace.v1.trace_pb2 import Span as OtlpSpan

from eval_pipeline.backends.display_io import display_attributes
from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.model import Message, Operation, Span, StatusCode

BATCH = 2000
"""Spans per OTLP request."""
TIMEOUT_S = 60.0
_KINDS = {
    "internal": OtlpSpan.SPAN_KIND_INTERNAL,
    "server": OtlpSpan.SPAN_KIND_SERVER,
    "client": OtlpSpan.SPAN_KIND_CLIENT,
    "producer": OtlpSpan.SPAN_KIND_PRODUCER,
    "consumer": OtlpSpan.SPAN_KIND_CONSUMER,
}
_STATUS = {
    StatusCode.UNSET: Status.STATUS_CODE_UNSET,
    StatusCode.OK: Status.STATUS_CODE_OK,
    StatusCode.ERROR: Status.STATUS_CODE_ERROR,
}


def any_value(value: Any) -> AnyValue:
    """An OTLP ``AnyValue`` for a JSON value (mappings as kvlists, sequences as arrays)."""
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, Mapping):
        out = AnyValue()
        out.kvlist_value.values.extend(key_values(value))
        return out
    if isinstance(value, list | tuple):
        out = AnyValue()
        out.array_value.values.extend(any_value(v) for v in value)
        return out
    return AnyValue(string_value="" if value is None else str(value))


def key_values(attributes: Mapping[str, Any]) -> list[KeyValue]:
    """OTLP key-values of a mapping (None values are left out, as OTLP has no null)."""
    return [KeyValue(key=k, value=any_value(v)) for k, v in attributes.items() if v is not None]


def _message(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "parts": list(message.parts)}
    if message.name is not None:
        out["name"] = message.name
    if message.finish_reason is not None:
        out["finish_reason"] = message.finish_reason
    return out


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def genai_attributes(span: Span) -> dict[str, Any]:
    """The span's attributes in the pinned GenAI conventions (its lifted fields put back)."""
    attributes = dict(span.attributes)
    lifted: dict[str, Any] = {
        sc.OPERATION_NAME: None if span.operation == Operation.UNKNOWN else span.operation,
        sc.AGENT_NAME: span.agent_name,
        sc.TOOL_NAME: span.tool_name,
        sc.TOOL_CALL_ID: span.tool_call_id,
        sc.PROVIDER_NAME: span.provider,
        sc.USAGE_INPUT_TOKENS: span.input_tokens,
        sc.USAGE_OUTPUT_TOKENS: span.output_tokens,
        sc.CONVERSATION_ID: span.conversation_id,
    }
    if span.tool_arguments is not None:
        lifted[sc.TOOL_CALL_ARGUMENTS] = _json_text(span.tool_arguments)
    if span.tool_result is not None:
        lifted[sc.TOOL_CALL_RESULT] = _json_text(span.tool_result)
    if span.input_messages:
        lifted[sc.INPUT_MESSAGES] = json.dumps([_message(m) for m in span.input_messages])
    if span.output_messages:
        lifted[sc.OUTPUT_MESSAGES] = json.dumps([_message(m) for m in span.output_messages])
    if span.model and sc.RESPONSE_MODEL not in attributes and sc.REQUEST_MODEL not in attributes:
        lifted[sc.REQUEST_MODEL] = span.model
    attributes.update({k: v for k, v in lifted.items() if v is not None})
    return attributes


def otlp_span(span: Span, extra: Mapping[str, Any] | None = None) -> OtlpSpan:
    """One stored span as an OTLP span (``extra`` attributes added to its own)."""
    out = OtlpSpan(
        trace_id=bytes.fromhex(span.trace_id),
        span_id=bytes.fromhex(span.span_id),
        name=span.name,
        kind=_KINDS.get(span.kind, OtlpSpan.SPAN_KIND_INTERNAL),  # type: ignore[arg-type]
        start_time_unix_nano=span.start_time_unix_nano,
        end_time_unix_nano=span.end_time_unix_nano,
        attributes=key_values({**genai_attributes(span), **(extra or {})}),
        status=Status(code=_STATUS[span.status_code], message=span.status_message or ""),  # type: ignore[arg-type]
    )
    if span.parent_span_id:
        out.parent_span_id = bytes.fromhex(span.parent_span_id)
    for event in span.events:
        out.events.add(
            name=event.name,
            time_unix_nano=event.time_unix_nano,
            attributes=key_values(event.attributes),
        )
    return out


def trace_requests(
    spans: Sequence[Span],
    *,
    extra_resource: Mapping[str, Any] | None = None,
    batch: int = BATCH,
    display: bool = False,
) -> Iterable[ExportTraceServiceRequest]:
    """OTLP trace requests holding ``spans`` (``batch`` spans each, grouped by resource).

    ``display`` adds ``input.value`` / ``output.value`` (``display_io``).
    """
    shown = display_attributes(spans) if display else {}
    for start in range(0, len(spans), batch):
        groups: dict[str, tuple[dict[str, Any], dict[str | None, list[OtlpSpan]]]] = {}
        for span in spans[start : start + batch]:
            resource = {**span.resource, **(extra_resource or {})}
            key = json.dumps(resource, sort_keys=True, default=str)
            _, scopes = groups.setdefault(key, (resource, {}))
            scopes.setdefault(span.scope_name, []).append(otlp_span(span, shown.get(span.span_id)))
        yield ExportTraceServiceRequest(
            resource_spans=[
                ResourceSpans(
                    resource=Resource(attributes=key_values(resource)),
                    scope_spans=[
                        ScopeSpans(scope=InstrumentationScope(name=scope or ""), spans=group)
                        for scope, group in scopes.items()
                    ],
                )
                for resource, scopes in groups.values()
            ]
        )


def send_traces(
    spans: Sequence[Span],
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    extra_resource: Mapping[str, Any] | None = None,
    display: bool = False,
) -> int:
    """POST ``spans`` as OTLP/HTTP protobuf to the traces ``url``; the number of spans sent.

    ``display`` adds each span's input and output for trace UIs (``display_io``). Raises
    ``httpx.HTTPError`` (or ``httpx.HTTPStatusError`` for an answer >= 400).
    """
    sent = 0
    with httpx.Client(timeout=TIMEOUT_S) as client:
        for request in trace_requests(spans, extra_resource=extra_resource, display=display):
            reply = client.post(
                url,
                content=request.SerializeToString(),
                headers={"Content-Type": "application/x-protobuf", **(headers or {})},
            )
            reply.raise_for_status()
            sent += sum(len(s.spans) for r in request.resource_spans for s in r.scope_spans)
    return sent
