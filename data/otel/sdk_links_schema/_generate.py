"""Writes this folder's files with the real OpenTelemetry Python SDK and OTLP encoder.

``PYTHONPATH=. python data/otel/sdk_links_schema/_generate.py`` (opentelemetry-sdk 1.45.2,
opentelemetry-exporter-otlp-proto-common 1.45.2, as pinned in requirements.lock). The ``.pb``
files are the bytes the OTLP/HTTP exporter POSTs (``encode_spans``); the ``.otlp.json`` files
are the same requests in OTLP/JSON. Ids are fixed so the tests can name spans.

- ``agent_run_links_tracestate``: an agent run whose root links to the conversation's earlier
  trace (link attributes, one holding an e-mail address, and a link trace state); the sampler
  sets a W3C trace state the spans inherit; the resource and the tracers declare schema URLs
  (the tool library's tracer declares none, so its spans fall back to the resource's).
- ``chat_operation_details_event``: a chat span in the 1.37+ conventions whose content is
  captured in a ``gen_ai.client.inference.operation.details`` span event (JSON-string values,
  as the Python SDK takes them on events), not on the span.
"""

import base64
import json
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import Link, SpanContext, SpanKind, TraceFlags, TraceState

HERE = Path(__file__).parent
GENAI_DEV = "https://opentelemetry.io/schemas/gen-ai-dev/1.42.0-dev"
CORE_137 = "https://opentelemetry.io/schemas/1.37.0"


class _Ids(IdGenerator):
    def __init__(self, trace_id: int) -> None:
        self._trace_id = trace_id
        self._span = 0x1000

    def generate_trace_id(self) -> int:
        return self._trace_id

    def generate_span_id(self) -> int:
        self._span += 1
        return self._span


class _TraceStateSampler(Sampler):
    """Samples everything and sets a vendor trace state on root spans (as vendors' do)."""

    def should_sample(self, parent_context, trace_id, name, kind=None, attributes=None, links=None):
        return SamplingResult(
            Decision.RECORD_AND_SAMPLE,
            attributes,
            trace_state=TraceState([("rojo", "00f067aa0ba902b7"), ("congo", "t61rcWkgMzE")]),
        )

    def get_description(self) -> str:
        return "TraceStateSampler"


def _provider(trace_id: int, resource: Resource, sampler: Sampler | None = None):
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=resource, id_generator=_Ids(trace_id), sampler=sampler)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _write(name: str, spans) -> None:
    request = encode_spans(spans)
    (HERE / f"{name}.otlp.pb").write_bytes(request.SerializeToString())
    document = MessageToDict(request)
    for rs in document["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for item in (span, *span.get("links", [])):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in item:  # OTLP/JSON ids are hex, not protobuf-JSON base64
                            item[key] = base64.b64decode(item[key]).hex()
    (HERE / f"{name}.otlp.json").write_text(json.dumps(document, indent=1) + "\n")


def agent_run() -> None:
    resource = Resource({"service.name": "support-agent"}, schema_url=CORE_137)
    provider, exporter = _provider(
        0x5A1E5A1E5A1E5A1E5A1E5A1E5A1E0001, resource, _TraceStateSampler()
    )
    agent = provider.get_tracer("support_agent", "1.4.0", schema_url=GENAI_DEV)
    tools = provider.get_tracer("crm_tools", "0.9.1")
    earlier = SpanContext(
        0x5A1E5A1E5A1E5A1E5A1E5A1E5A1E0000,
        0x00000000000A0001,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=TraceState([("rojo", "00f067aa0ba90201")]),
    )
    link = Link(
        earlier,
        {"link.reason": "resumed_conversation", "customer.email": "jane.doe@example.com"},
    )
    request = [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "call_7",
                    "name": "lookup_order",
                    "arguments": {"order_id": "A-17"},
                }
            ],
        }
    ]
    with agent.start_as_current_span(
        "invoke_agent support",
        links=[link],
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support"},
    ):
        with agent.start_as_current_span(
            "chat gpt-4.1",
            kind=SpanKind.CLIENT,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4.1",
                "gen_ai.output.messages": json.dumps(request),
                "gen_ai.usage.input_tokens": 40,
                "gen_ai.usage.output_tokens": 9,
            },
        ):
            pass
        with tools.start_as_current_span(
            "execute_tool lookup_order",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup_order",
                "gen_ai.tool.call.id": "call_7",
            },
        ):
            pass
    provider.shutdown()
    _write("agent_run_links_tracestate", exporter.get_finished_spans())


def operation_details() -> None:
    resource = Resource({"service.name": "chat-app"})
    provider, exporter = _provider(0x5A1E5A1E5A1E5A1E5A1E5A1E5A1E0002, resource)
    tracer = provider.get_tracer("opentelemetry.instrumentation.openai_v2", "2.4b0", CORE_137)
    inputs = [{"role": "user", "parts": [{"type": "text", "content": "Where is order A-17?"}]}]
    outputs = [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "Order A-17 ships tomorrow."}],
            "finish_reason": "stop",
        }
    ]
    system = [{"type": "text", "content": "You are a support agent."}]
    tools = [{"type": "function", "name": "lookup_order", "parameters": {"type": "object"}}]
    with tracer.start_as_current_span(
        "chat gpt-4.1",
        kind=SpanKind.CLIENT,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4.1",
        },
    ) as span:
        span.add_event(
            "gen_ai.client.inference.operation.details",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4.1",
                "gen_ai.response.model": "gpt-4.1-2025-04-14",
                "gen_ai.response.id": "chatcmpl-17",
                "gen_ai.usage.input_tokens": 31,
                "gen_ai.usage.output_tokens": 8,
                "gen_ai.input.messages": json.dumps(inputs),
                "gen_ai.output.messages": json.dumps(outputs),
                "gen_ai.system_instructions": json.dumps(system),
                "gen_ai.tool.definitions": json.dumps(tools),
            },
        )
    provider.shutdown()
    _write("chat_operation_details_event", exporter.get_finished_spans())


if __name__ == "__main__":
    agent_run()
    operation_details()
