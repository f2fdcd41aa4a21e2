"""OTLP -> project spans for the runners: one conversion path for both live runners.

The Python runner encodes the SDK's finished spans with the exporter's own ``encode_spans``
(the exact OTLP/HTTP body an agent would send), and the HTTP runner receives that body from
the agent; both then go through ``decode_request``. It uses the project's ingest decoder
(``traces.otlp_decode.decode_otlp`` then ``traces.normalise``) when present, so runner spans
are normalised exactly like ingested ones; otherwise a small built-in GenAI mapping (the
attributes the sample agent and current GenAI instrumentations emit) keeps the runners usable.
"""

import importlib
import json
from collections.abc import Sequence
from typing import Any

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.sdk.trace import ReadableSpan

from eval_pipeline.traces.model import Message, Operation, Span, SpanEvent, StatusCode

_KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
_STATUS = (StatusCode.UNSET, StatusCode.OK, StatusCode.ERROR)

_LIFTED = {
    "gen_ai.operation.name",
    "gen_ai.agent.name",
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gen_ai.request.model",
    "gen_ai.provider.name",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.conversation.id",
    "gen_ai.input.messages",
    "gen_ai.output.messages",
}


def encode_readable(spans: Sequence[ReadableSpan]) -> bytes:
    """The OTLP/HTTP protobuf body for SDK spans (what the OTLP exporter would POST)."""
    return bytes(encode_spans(spans).SerializeToString())


def decode_request(body: bytes, *, source: str = "runner") -> list[Span]:
    """Decode an OTLP/HTTP protobuf body into normalised project spans.

    Raises:
        ValueError: the body is not a valid ``ExportTraceServiceRequest``, or the ingest
            decoder rejected spans in it (runner traces must decode cleanly).
    """
    decoded = _project_decoder(body, source)
    if decoded is not None:
        return decoded
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    return _fallback_decode(request)


def _project_decoder(body: bytes, source: str) -> list[Span] | None:
    try:
        decoder = importlib.import_module("eval_pipeline.traces.decode.otlp")
        normaliser = importlib.import_module("eval_pipeline.traces.normalise.normaliser")
    except ImportError:
        return None
    result = decoder.decode_otlp(body, content_type="application/x-protobuf", source=source)
    errors = list(result.errors)
    if errors:
        raise ValueError(f"{source}: OTLP decode rejected spans: {errors[:3]}")
    return list(normaliser.normalise_spans(result.spans))


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "array_value":
        return [_value(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        return value.bytes_value.hex()
    return None if which is None else getattr(value, which)


def _json(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _messages(raw: Any) -> tuple[Message, ...]:
    parsed = _json(raw)
    if not isinstance(parsed, list):
        return ()
    return tuple(
        Message(
            role=str(m.get("role", "")),
            parts=tuple(m.get("parts") or ()),
            name=m.get("name"),
            finish_reason=m.get("finish_reason"),
        )
        for m in parsed
        if isinstance(m, dict)
    )


def _fallback_decode(request: ExportTraceServiceRequest) -> list[Span]:
    spans: list[Span] = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: _value(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for pb in scope_spans.spans:
                attrs = {kv.key: _value(kv.value) for kv in pb.attributes}
                tokens_in = attrs.get("gen_ai.usage.input_tokens")
                tokens_out = attrs.get("gen_ai.usage.output_tokens")
                spans.append(
                    Span(
                        trace_id=pb.trace_id.hex(),
                        span_id=pb.span_id.hex(),
                        parent_span_id=pb.parent_span_id.hex() or None,
                        name=pb.name,
                        kind=_KINDS[pb.kind] if pb.kind < len(_KINDS) else "unspecified",
                        start_time_unix_nano=pb.start_time_unix_nano,
                        end_time_unix_nano=pb.end_time_unix_nano,
                        status_code=_STATUS[pb.status.code],
                        status_message=pb.status.message or None,
                        operation=str(attrs.get("gen_ai.operation.name") or Operation.UNKNOWN),
                        agent_name=attrs.get("gen_ai.agent.name"),
                        tool_name=attrs.get("gen_ai.tool.name"),
                        tool_call_id=attrs.get("gen_ai.tool.call.id"),
                        tool_arguments=_json(attrs.get("gen_ai.tool.call.arguments")),
                        tool_result=_json(attrs.get("gen_ai.tool.call.result")),
                        model=attrs.get("gen_ai.request.model"),
                        provider=attrs.get("gen_ai.provider.name"),
                        input_tokens=None if tokens_in is None else int(tokens_in),
                        output_tokens=None if tokens_out is None else int(tokens_out),
                        conversation_id=attrs.get("gen_ai.conversation.id"),
                        input_messages=_messages(attrs.get("gen_ai.input.messages")),
                        output_messages=_messages(attrs.get("gen_ai.output.messages")),
                        attributes={k: v for k, v in attrs.items() if k not in _LIFTED},
                        events=tuple(
                            SpanEvent(
                                e.name,
                                e.time_unix_nano,
                                {kv.key: _value(kv.value) for kv in e.attributes},
                            )
                            for e in pb.events
                        ),
                        resource=resource,
                        scope_name=scope_spans.scope.name or None,
                    )
                )
    return spans
