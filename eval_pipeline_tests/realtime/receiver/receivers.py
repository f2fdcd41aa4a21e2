"""Builders for receiver tests: a running receiver, agent traces as OTLP requests."""

import multiprocessing
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.auth import Authenticator, Scope
from eval_pipeline.realtime.receiver.http_body import BodyLimits
from eval_pipeline.realtime.receiver.http_receiver import LogsHandler
from eval_pipeline.realtime.receiver.inflight import InflightBudget
from eval_pipeline.realtime.receiver.server import Endpoints, Receiver
from eval_pipeline.realtime.receiver.write_path import WritePath
from eval_pipeline.realtime.receiver.writer import SpanPublisher, Writer, WriterSpec
from eval_pipeline.traces.store.trace_store import TraceStore

BUILD_ATTRIBUTE = "eval_pipeline.build.id"
MB = 1024 * 1024


@contextmanager
def running_receiver(
    *,
    tokens: dict[str, Scope] | None = None,
    host: str = "127.0.0.1",
    grpc: bool = False,
    stream: SpanPublisher | None = None,
    limits: BodyLimits | None = None,
    header_timeout_s: float = 10.0,
    workers: int = 2,
    queue: int = 8,
    on_logs: LogsHandler | None = None,
    store_root: Path | None = None,
    processes: bool = False,
    budget: InflightBudget | None = None,
) -> Iterator[Receiver]:
    """A receiver on free loopback ports over the test's home, serving for the block.

    ``processes``: write in worker processes over the home (``WriterSpec``, as ``serve``
    does; the embedded stream), not in threads over ``store_root`` and ``stream``.
    """
    home = current_home().ensure()
    writer: Writer | WriterSpec
    if processes:
        writer = WriterSpec(home.root)
    else:
        writer = Writer(
            TraceStore(store_root or home.store),
            registry=BuildRegistry(home.state_url),
            stream=stream,
        )
    write_path = WritePath(writer, workers=workers, queue=queue)
    receiver = Receiver(
        write_path,
        Authenticator(tokens or {}, host=host),
        Endpoints(host=host, http_port=0, grpc_port=0 if grpc else None),
        limits=limits,
        header_timeout_s=header_timeout_s,
        on_logs=on_logs,
        budget=budget,
    )
    with receiver.running():
        yield receiver


def worker_processes() -> set[int]:
    """The live worker processes this process started through multiprocessing (write path)."""
    return {process.pid for process in multiprocessing.active_children() if process.pid}


def rss_mb() -> float:
    """This process's resident memory now (MB)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MB


@contextmanager
def rss_growth() -> Iterator[list[float]]:
    """The largest RSS growth over the block (MB), sampled every 10 ms, in ``[0]`` after it."""
    baseline = rss_mb()
    peak = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.01):
            peak[0] = max(peak[0], rss_mb() - baseline)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()
        peak[0] = max(peak[0], rss_mb() - baseline)


def url(receiver: Receiver, path: str = "/v1/traces") -> str:
    """The receiver's URL on loopback (also when it is bound to every interface)."""
    return f"http://127.0.0.1:{receiver.http_port}{path}"


def _kv(key: str, value: Any) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=str(value)))


def agent_trace(
    index: int, *, build: str | None = None, tool_error: bool = False, tools: int = 1
) -> list[Span]:
    """An agent run: an ``invoke_agent`` root and ``tools`` tool calls (the first may fail)."""
    trace_id = (index + 1).to_bytes(16, "big")
    root_id = ((index + 1) * 1000).to_bytes(8, "big")
    attributes = [_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", "a")]
    if build is not None:
        attributes.append(_kv(BUILD_ATTRIBUTE, build))
    base = 1_796_031_787_000_000_000 + index * 1_000_000
    spans = [
        Span(
            trace_id=trace_id,
            span_id=root_id,
            name="invoke_agent a",
            start_time_unix_nano=base,
            end_time_unix_nano=base + 900_000,
            attributes=attributes,
        )
    ]
    for step in range(tools):
        failed = tool_error and step == 0
        spans.append(
            Span(
                trace_id=trace_id,
                span_id=((index + 1) * 1000 + step + 1).to_bytes(8, "big"),
                parent_span_id=root_id,
                name="execute_tool lookup",
                start_time_unix_nano=base + 1000 * (step + 1),
                end_time_unix_nano=base + 1000 * (step + 2),
                attributes=[
                    _kv("gen_ai.operation.name", "execute_tool"),
                    _kv("gen_ai.tool.name", "lookup"),
                    _kv("gen_ai.tool.call.result", "error: timeout" if failed else "ok"),
                ],
                status=Status(code=Status.STATUS_CODE_ERROR if failed else Status.STATUS_CODE_OK),
            )
        )
    return spans


def request_of(spans: Sequence[Span]) -> bytes:
    """An OTLP protobuf trace request holding ``spans``."""
    return ExportTraceServiceRequest(
        resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=list(spans))])]
    ).SerializeToString()


def traces_request(first: int, count: int, **kwargs: Any) -> bytes:
    """A request with ``count`` agent traces, numbered from ``first``."""
    return request_of([s for i in range(first, first + count) for s in agent_trace(i, **kwargs)])
