"""Builders for trace tests: small real payloads and spans, no deep fixture graphs."""

import json
from pathlib import Path
from typing import Any

from eval_pipeline.traces.model import Message, Operation, Span
from eval_pipeline.traces.semconv import TARGET_CONVENTION_VERSION

REPO = Path(__file__).resolve().parents[2]
OTEL = REPO / "data" / "otel"
AGENTS = OTEL / "openai_agents__otel_contrib_instrumentation"
CHAT = OTEL / "openai_chat__otel_contrib_openai_v2"
SYNTHETIC = OTEL / "synthetic"
TAU = REPO / "data" / "taubench_trajectories"


def make_span(
    span_id: str,
    parent: str | None = None,
    *,
    trace_id: str = "ab" * 16,
    operation: str = Operation.UNKNOWN,
    start: int = 0,
    **fields: Any,
) -> Span:
    """A normalised span; ids are padded to 16 hex chars."""
    return Span(
        trace_id=trace_id,
        span_id=span_id.rjust(16, "0"),
        parent_span_id=parent.rjust(16, "0") if parent else None,
        name=fields.pop("name", operation),
        operation=operation,
        start_time_unix_nano=start,
        end_time_unix_nano=fields.pop("end", start + 10),
        convention_version=TARGET_CONVENTION_VERSION,
        **fields,
    )


def assistant(*parts: dict[str, Any]) -> Message:
    """An assistant message with the given parts."""
    return Message(role="assistant", parts=tuple(parts))


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    """A ``tool_call`` part."""
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}


def otlp_json(spans: list[dict[str, Any]]) -> bytes:
    """An OTLP/JSON request body holding ``spans`` (raw JSON span objects)."""
    return json.dumps(
        {
            "resourceSpans": [
                {
                    "resource": {"attributes": []},
                    "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}],
                }
            ]
        }
    ).encode()


def json_span(span_id: str = "00000000000000a1", **overrides: Any) -> dict[str, Any]:
    """A valid OTLP/JSON span object (override any key)."""
    span: dict[str, Any] = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": span_id,
        "name": "chat m",
        "kind": 3,
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
    }
    span.update(overrides)
    return span


def otlp_protobuf(document: dict[str, Any]) -> bytes:
    """The protobuf body of an OTLP/JSON request document (hex ids, enums by name or number)."""
    import base64

    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    document = json.loads(json.dumps(document))
    # OTLP/JSON ids are hex; the protobuf JSON mapping wants base64.
    for resource_spans in document.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for item in (span, *span.get("links", [])):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if item.get(key):
                            item[key] = base64.b64encode(bytes.fromhex(item[key])).decode()
    request = ExportTraceServiceRequest()
    json_format.ParseDict(document, request)
    return request.SerializeToString()
