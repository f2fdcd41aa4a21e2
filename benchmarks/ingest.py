"""Benchmark: spans per second through decode -> normalise -> redact -> completeness -> store.

The reference, measured in the same run on the same payload, is the least a store must do: a
plain protobuf parse walked into Python objects and written to Parquet. The payload is a
synthetic OTLP protobuf request of agent traces shaped like the OpenAI Agents samples (one
``invoke_agent`` root, chat spans with JSON messages and usage, tool spans with arguments and
results, some personal data to redact). Goal: ratio >= 0.5 (process CPU time, pure Python).
``pipeline_us_per_span_by_stage`` says where the time goes.
"""

import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan

from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF, decode_raw
from eval_pipeline.traces.decode.otlp_json import to_document
from eval_pipeline.traces.ingest.completeness import incomplete_traces
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.ingest.rows import record_row
from eval_pipeline.traces.normalise.messages import clear_parse_cache
from eval_pipeline.traces.redact.fields import RowScrubber
from eval_pipeline.traces.redact.redactor import RedactionPolicy, Redactor, load_policy
from eval_pipeline.traces.store.trace_store import TraceStore

SPANS_PER_TRACE = 8


def _kv(key: str, value: str | int) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def _trace(index: int) -> list[PbSpan]:
    trace_id = index.to_bytes(16, "big")
    root = (index * 100 + 1).to_bytes(8, "big")
    base = 1_796_031_787_000_000_000 + index * 10_000_000
    question = f"What is the weather in city {index}? Mail me at user{index}@example.com"
    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": question}]}])
    spans = [
        PbSpan(
            trace_id=trace_id,
            span_id=root,
            name="invoke_agent WeatherAgent",
            kind=PbSpan.SPAN_KIND_CLIENT,
            start_time_unix_nano=base,
            end_time_unix_nano=base + 9_000_000,
            attributes=[
                _kv("gen_ai.operation.name", "invoke_agent"),
                _kv("gen_ai.agent.name", "WeatherAgent"),
                _kv("gen_ai.provider.name", "openai"),
                _kv("gen_ai.input.messages", messages),
            ],
        )
    ]
    for step in range(1, SPANS_PER_TRACE):
        span_id = (index * 100 + 1 + step).to_bytes(8, "big")
        start = base + step * 1_000_000
        if step % 2:
            call = (
                f'ResponseFunctionToolCall(arguments=\'{{"city":"c{index}"}}\', '
                f"call_id='call_{index}_{step}', name='get_weather', type='function_call')"
            )
            output = json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": call}]}]
            )
            attributes = [
                _kv("gen_ai.operation.name", "chat"),
                _kv("gen_ai.request.model", "gpt-4.1"),
                _kv("gen_ai.provider.name", "openai"),
                _kv("gen_ai.usage.input_tokens", 72 + step),
                _kv("gen_ai.usage.output_tokens", 15),
                _kv("gen_ai.input.messages", messages),
                _kv("gen_ai.output.messages", output),
            ]
            name = "chat gpt-4.1"
        else:
            attributes = [
                _kv("gen_ai.operation.name", "execute_tool"),
                _kv("gen_ai.tool.name", "get_weather"),
                _kv("gen_ai.tool.call.arguments", f'{{"city":"c{index}"}}'),
                _kv("gen_ai.tool.call.result", "It's cloudy with 15°C"),
            ]
            name = "execute_tool get_weather"
        spans.append(
            PbSpan(
                trace_id=trace_id,
                span_id=span_id,
                parent_span_id=root,
                name=name,
                kind=PbSpan.SPAN_KIND_INTERNAL,
                start_time_unix_nano=start,
                end_time_unix_nano=start + 500_000,
                attributes=attributes,
            )
        )
    return spans


def make_payload(n_spans: int) -> bytes:
    """A protobuf ``ExportTraceServiceRequest`` with about ``n_spans`` agent spans."""
    spans = [s for i in range(max(1, n_spans // SPANS_PER_TRACE)) for s in _trace(i + 1)]
    request = ExportTraceServiceRequest(
        resource_spans=[
            ResourceSpans(
                resource=Resource(attributes=[_kv("service.name", "bench-agent")]),
                scope_spans=[ScopeSpans(scope=InstrumentationScope(name="bench"), spans=spans)],
            )
        ]
    )
    return request.SerializeToString()


_REFERENCE_COLUMNS = (
    "trace_id",
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "start",
    "end",
    "attributes",
)


def _plain_value(value: AnyValue) -> Any:
    return getattr(value, value.WhichOneof("value") or "string_value")


def reference(payload: bytes, folder: Path) -> int:
    """Plain protobuf parse walked into Python objects and written to Parquet."""
    request = ExportTraceServiceRequest.FromString(payload)
    rows: dict[str, list[Any]] = {k: [] for k in _REFERENCE_COLUMNS}
    for resource_spans in request.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                rows["trace_id"].append(span.trace_id.hex())
                rows["span_id"].append(span.span_id.hex())
                rows["parent_span_id"].append(span.parent_span_id.hex() or None)
                rows["name"].append(span.name)
                rows["kind"].append(span.kind)
                rows["start"].append(span.start_time_unix_nano)
                rows["end"].append(span.end_time_unix_nano)
                rows["attributes"].append(
                    json.dumps({kv.key: _plain_value(kv.value) for kv in span.attributes})
                )
    pq.write_table(pa.Table.from_pydict(rows), folder / "reference.parquet")
    return len(rows["span_id"])


def make_json_payload(n_spans: int) -> bytes:
    """``make_payload``'s request in the OTLP/JSON encoding (hex ids, as exporters send it)."""
    request = ExportTraceServiceRequest.FromString(make_payload(n_spans))
    return json.dumps(to_document(request)).encode()


def json_reference(payload: bytes, folder: Path) -> int:
    """Plain JSON parse walked into Python objects and written to Parquet."""
    document = json.loads(payload)
    rows: dict[str, list[Any]] = {k: [] for k in _REFERENCE_COLUMNS}
    for resource_spans in document["resourceSpans"]:
        for scope_spans in resource_spans["scopeSpans"]:
            for span in scope_spans["spans"]:
                rows["trace_id"].append(span["traceId"])
                rows["span_id"].append(span["spanId"])
                rows["parent_span_id"].append(span.get("parentSpanId"))
                rows["name"].append(span["name"])
                rows["kind"].append(span.get("kind"))
                rows["start"].append(int(span["startTimeUnixNano"]))
                rows["end"].append(int(span["endTimeUnixNano"]))
                rows["attributes"].append(
                    json.dumps(
                        {kv["key"]: next(iter(kv["value"].values())) for kv in span["attributes"]}
                    )
                )
    pq.write_table(pa.Table.from_pydict(rows), folder / "reference.parquet")
    return len(rows["span_id"])


@dataclass(frozen=True)
class _Encoding:
    """What differs between the protobuf and the JSON run of the benchmark."""

    media: str
    payload: Callable[[int], bytes]
    reference: Callable[[bytes, Path], int]
    reference_text: str


ENCODINGS = {
    "protobuf": _Encoding(
        PROTOBUF, make_payload, reference, "protobuf parse -> Python dicts -> Parquet"
    ),
    "json": _Encoding(
        JSON, make_json_payload, json_reference, "json.loads -> Python dicts -> Parquet"
    ),
}


def _pipeline(
    payload: bytes, store: TraceStore, policy: RedactionPolicy, media: str = PROTOBUF
) -> IngestReport:
    return ingest(
        [OtlpRequest(payload, media, "bench")], store=store, policy=policy, day="2026-01-01"
    )


def _timed(function: Any, *args: Any) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    return time.perf_counter() - wall, time.process_time() - cpu, result


def stage_breakdown(
    payload: bytes, policy: RedactionPolicy, folder: Path, encoding: str = "protobuf"
) -> dict[str, float]:
    """CPU microseconds per span of each stage of the pipeline as it runs.

    The stages of ``ingest``, run here one after the other (same functions, same order), so
    the sum can differ slightly from the end-to-end figure; it says where the time goes.
    """
    clear_parse_cache()
    redactor = Redactor(policy)
    marks = [time.process_time()]
    decoded = decode_raw(payload, content_type=ENCODINGS[encoding].media, source="bench")
    marks.append(time.process_time())
    rows = [record_row(raw, redactor) for raw in decoded.spans]
    marks.append(time.process_time())
    rows = RowScrubber(redactor).scrub_rows(rows)
    marks.append(time.process_time())
    incomplete_traces(rows)
    marks.append(time.process_time())
    TraceStore(folder).write_rows(rows, day="2026-01-01")
    marks.append(time.process_time())
    count = max(1, len(rows))
    names = ("decode", "normalise_redact", "scrub_other_fields", "completeness", "store")
    return {name: round((marks[i + 1] - marks[i]) / count * 1e6, 2) for i, name in enumerate(names)}


def run(
    n_spans: int = 20000, repeats: int = 5, policy_name: str = "default", encoding: str = "protobuf"
) -> dict[str, Any]:
    """The pipeline and the reference on one payload, interleaved, best of ``repeats``.

    JSON-safe. ``ratio`` uses process CPU time, which other processes on a shared machine do not
    inflate; ``wall_ratio`` uses wall time (both include their Parquet writes).
    ``pipeline_us_per_span_by_stage`` is the best of ``repeats`` separate stage-by-stage runs
    (``stage_breakdown``); ``reference_us_per_span`` is the reference on the same scale.
    """
    chosen = ENCODINGS[encoding]
    payload = chosen.payload(n_spans)
    policy = load_policy(policy_name)
    pipeline: list[tuple[float, float]] = []
    plain: list[tuple[float, float]] = []
    stored = count = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for attempt in range(repeats):
            wall, cpu, count = _timed(chosen.reference, payload, root)
            plain.append((wall, cpu))
            store = TraceStore(root / f"store{attempt}")
            clear_parse_cache()  # no run profits from histories parsed by the one before
            wall, cpu, report = _timed(_pipeline, payload, store, policy, chosen.media)
            pipeline.append((wall, cpu))
            stored = report.spans_stored
        stages: dict[str, float] = {}
        for attempt in range(repeats):
            measured = stage_breakdown(payload, policy, root / f"stages{attempt}", encoding)
            stages = {k: min(v, stages.get(k, v)) for k, v in measured.items()}
    cpu_rate = stored / min(c for _, c in pipeline)
    reference_cpu_rate = count / min(c for _, c in plain)
    wall_rate = stored / min(w for w, _ in pipeline)
    reference_wall_rate = count / min(w for w, _ in plain)
    return {
        "benchmark": "ingest",
        "encoding": encoding,
        "spans": stored,
        "payload_bytes": len(payload),
        "pipeline_spans_per_s": round(cpu_rate, 1),
        "reference_spans_per_s": round(reference_cpu_rate, 1),
        "ratio": round(cpu_rate / reference_cpu_rate, 3),
        "pipeline_wall_spans_per_s": round(wall_rate, 1),
        "reference_wall_spans_per_s": round(reference_wall_rate, 1),
        "wall_ratio": round(wall_rate / reference_wall_rate, 3),
        "goal_ratio": 0.5,
        "reference_us_per_span": round(1e6 / reference_cpu_rate, 2),
        "pipeline_us_per_span": round(1e6 / cpu_rate, 2),
        "pipeline_us_per_span_by_stage": stages,
        "pipeline": (
            f"decode -> normalise -> redact ({policy.name} policy) -> completeness -> Parquet store"
        ),
        "reference": chosen.reference_text,
    }
