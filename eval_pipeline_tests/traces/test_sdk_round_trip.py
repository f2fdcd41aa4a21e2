"""Round trip with the OpenTelemetry SDK encoder.

Round trip with the OpenTelemetry SDK: spans recorded by the SDK and encoded by its own
OTLP encoder (protobuf, and the JSON mapping of the same message with hex ids) decode to the
same runs as the SDK's spans read directly.
"""

import json

from opentelemetry.exporter.otlp.proto.common._internal.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF, decode_otlp
from eval_pipeline.traces.decode.otlp_json import to_document
from eval_pipeline.traces.model import EvalContext, Span, SpanEvent
from eval_pipeline.traces.normalise.normaliser import normalise_spans
from eval_pipeline.traces.runs.assemble import assemble_runs


def _record():
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "sdk-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("round.trip")
    context = eval_context.to_attributes(EvalContext(build_id="sdk-b", item_id="it-1", run_index=1))
    request = [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "call_1",
                    "name": "refund",
                    "arguments": {"order": "W1"},
                }
            ],
        }
    ]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": "Refunded W1."}]}]
    with tracer.start_as_current_span(
        "invoke_agent Support",
        kind=SpanKind.CLIENT,
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "Support",
            "gen_ai.conversation.id": "conv-1",
            **context,
        },
    ):
        with tracer.start_as_current_span(
            "chat gpt-4o",
            kind=SpanKind.CLIENT,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 31,
                "gen_ai.usage.output_tokens": 9,
                "gen_ai.output.messages": json.dumps(request),
                "gen_ai.response.finish_reasons": ("tool_calls",),
            },
        ) as chat:
            chat.add_event(
                "gen_ai.evaluation.result",
                {"gen_ai.evaluation.name": "x", "gen_ai.evaluation.score.value": 0.5},
            )
        with tracer.start_as_current_span(
            "execute_tool refund",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "refund",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": json.dumps({"order": "W1"}),
                "gen_ai.tool.call.result": "ok",
                "retry.flags": (True, False),
            },
        ) as tool:
            tool.set_status(Status(StatusCode.OK))
        with (
            tracer.start_as_current_span(
                "invoke_agent Billing",
                attributes={
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": "Billing",
                },
            ),
            tracer.start_as_current_span(
                "chat gpt-4o",
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.usage.input_tokens": 40,
                    "gen_ai.usage.output_tokens": 5,
                    "gen_ai.output.messages": json.dumps(answer),
                },
            ),
        ):
            pass
    return exporter.get_finished_spans()


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def _direct(sdk_span) -> Span:
    context = sdk_span.context
    parent = sdk_span.parent
    return Span(
        trace_id=f"{context.trace_id:032x}",
        span_id=f"{context.span_id:016x}",
        parent_span_id=f"{parent.span_id:016x}" if parent else None,
        name=sdk_span.name,
        kind=sdk_span.kind.name.lower(),
        start_time_unix_nano=sdk_span.start_time,
        end_time_unix_nano=sdk_span.end_time,
        status_code=sdk_span.status.status_code.name.lower(),
        status_message=sdk_span.status.description,
        attributes={k: _plain(v) for k, v in sdk_span.attributes.items()},
        events=tuple(
            SpanEvent(e.name, e.timestamp, {k: _plain(v) for k, v in e.attributes.items()})
            for e in sdk_span.events
        ),
        resource={k: _plain(v) for k, v in sdk_span.resource.attributes.items()},
        scope_name=sdk_span.instrumentation_scope.name,
        convention_version=None,
    )


def test_protobuf_and_json_encodings_decode_to_the_same_runs():
    sdk_spans = _record()
    expected = assemble_runs(normalise_spans([_direct(s) for s in sdk_spans]))
    message = encode_spans(sdk_spans)
    from_pb = decode_otlp(message.SerializeToString(), content_type=PROTOBUF, source="sdk")
    assert from_pb.errors == []
    assert assemble_runs(normalise_spans(from_pb.spans)) == expected

    document = to_document(message)  # enums as names, int64 as strings, ids as hex
    from_json = decode_otlp(json.dumps(document).encode(), content_type=JSON, source="sdk")
    assert from_json.errors == []
    assert assemble_runs(normalise_spans(from_json.spans)) == expected

    (run,) = expected
    assert run.tool_names == ("refund",)
    assert run.tool_calls[0].arguments == {"order": "W1"}
    assert run.tool_calls[0].requested_by_span_id == run.model_calls[0].span_id
    assert [h.to_agent for h in run.handoffs] == ["Billing"]
    assert run.final_answer == "Refunded W1."
    assert (run.eval_context.build_id, run.eval_context.run_index) == ("sdk-b", 1)
    assert run.complete and run.conversation_id == "conv-1"


def test_sdk_protobuf_through_ingestion_stores_the_same_runs(tmp_path):
    from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
    from eval_pipeline.traces.redact.redactor import Redactor, load_policy
    from eval_pipeline.traces.store.trace_store import TraceStore

    sdk_spans = _record()
    redactor = Redactor(load_policy())
    direct = normalise_spans([_direct(s) for s in sdk_spans])
    expected = assemble_runs([redactor.redact(span) for span in direct])
    report = ingest(
        [OtlpRequest(encode_spans(sdk_spans).SerializeToString(), PROTOBUF, "sdk")],
        store=TraceStore(tmp_path),
        day="2026-11-30",
    )
    assert report.errors == []
    assert report.spans_stored == len(sdk_spans)
    assert TraceStore(tmp_path).runs("sdk-b") == expected
    (run,) = expected
    assert run.tool_names == ("refund",)
    assert run.tool_calls[0].arguments is None  # dropped by the default policy
