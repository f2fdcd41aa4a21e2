"""OTLP/HTTP as the specification says: encodings, status codes, Status bodies, retry hints.

Contract: the OpenTelemetry SDK's own exporter with gzip compression gets its spans stored; a
deflate or gzip body is inflated; every refusal carries a ``google.rpc.Status`` body in the
request's encoding: 400 (no readable span, broken compression), 413 (declared or inflated size
over the limit: nothing stored), 415 (``text/plain``, an unknown ``Content-Encoding``), 429
with ``Retry-After`` when the write path is full; a logs request without a handler is 404 and
with one the handler gets the decoded request; ``/healthz`` and ``/readyz`` answer.
"""

import fcntl
import gzip
import threading
import zlib

import httpx
from google.rpc import error_details_pb2, status_pb2
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.http_body import BodyLimits
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import running_receiver, traces_request, url

PROTOBUF = {"content-type": "application/x-protobuf"}


def _stored() -> int:
    return len(TraceStore(current_home().store).read_spans(PRODUCTION))


def _status(reply: httpx.Response) -> status_pb2.Status:
    return status_pb2.Status.FromString(reply.content)


def test_the_sdk_exporter_with_gzip_gets_its_spans_stored() -> None:
    with running_receiver() as receiver:
        exporter = OTLPSpanExporter(
            endpoint=url(receiver), compression=Compression.Gzip, timeout=10
        )
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracer = provider.get_tracer("test")
        with tracer.start_as_current_span(
            "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}
        ):
            pass
        provider.shutdown()
    assert _stored() == 1


def test_deflate_and_gzip_json_bodies_are_inflated() -> None:
    with running_receiver() as receiver:
        deflated = httpx.post(
            url(receiver),
            content=zlib.compress(traces_request(0, 2)),
            headers=PROTOBUF | {"content-encoding": "deflate"},
        )
        assert deflated.status_code == 200
        document = b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"' + b"ab" * 16
        document += b'","spanId":"' + b"cd" * 8 + b'","name":"chat m","startTimeUnixNano":"1",'
        document += b'"endTimeUnixNano":"2"}]}]}]}'
        gzipped = httpx.post(
            url(receiver),
            content=gzip.compress(document),
            headers={"content-type": "application/json", "content-encoding": "gzip"},
        )
        assert gzipped.status_code == 200 and gzipped.headers["content-type"].endswith("json")
    assert _stored() == 2 * 2 + 1


def test_every_refusal_has_its_status_code_and_a_status_body() -> None:
    limits = BodyLimits(max_body_bytes=64 * 1024, max_decompressed_bytes=256 * 1024)
    with running_receiver(limits=limits) as receiver:
        target = url(receiver)
        plain = httpx.post(target, content=b"hello", headers={"content-type": "text/plain"})
        assert plain.status_code == 415 and "text/plain" in _status(plain).message
        brotli = httpx.post(target, content=b"x", headers=PROTOBUF | {"content-encoding": "br"})
        assert brotli.status_code == 415 and "br" in _status(brotli).message
        broken = httpx.post(target, content=b"\x0a\xff\xff", headers=PROTOBUF)
        assert broken.status_code == 400 and _status(broken).code == 3  # INVALID_ARGUMENT
        as_json = httpx.post(target, content=b"{", headers={"content-type": "application/json"})
        assert as_json.status_code == 400 and as_json.json()["code"] == 3
        truncated = httpx.post(
            target,
            content=gzip.compress(traces_request(0, 1))[:-8],
            headers=PROTOBUF | {"content-encoding": "gzip"},
        )
        assert truncated.status_code == 400
        declared = httpx.post(target, content=b"\0" * (65 * 1024), headers=PROTOBUF)
        assert declared.status_code == 413
        bomb = gzip.compress(b"\0" * (10 * 1024 * 1024))  # 10 KB on the wire, 10 MB inflated
        assert len(bomb) < limits.max_body_bytes
        inflated = httpx.post(target, content=bomb, headers=PROTOBUF | {"content-encoding": "gzip"})
        assert inflated.status_code == 413 and "decompressed" in _status(inflated).message
        assert httpx.get(url(receiver, "/healthz")).json() == {"status": "ok"}
        assert httpx.get(url(receiver, "/readyz")).status_code == 200
    assert _stored() == 0


def test_a_full_write_path_answers_429_with_retry_after_and_loses_nothing() -> None:
    store = TraceStore(current_home().ensure().store)
    lock_file = store.build_dir(PRODUCTION) / ".write.lock"
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with running_receiver(workers=1, queue=0) as receiver, open(lock_file, "ab") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # the one worker blocks inside the store
        first: list[httpx.Response] = []
        sender = threading.Thread(
            target=lambda: first.append(
                httpx.post(url(receiver), content=traces_request(0, 1), headers=PROTOBUF)
            )
        )
        sender.start()
        while not receiver.write_path.saturated:
            threading.Event().wait(0.01)
        full = httpx.post(url(receiver), content=traces_request(1, 1), headers=PROTOBUF)
        assert full.status_code == 429 and full.headers["retry-after"] == "1"
        (detail,) = _status(full).details
        info = error_details_pb2.RetryInfo()
        assert detail.Unpack(info) and info.retry_delay.seconds == 1
        assert httpx.get(url(receiver, "/readyz")).status_code == 503
        assert httpx.get(url(receiver, "/healthz")).status_code == 200
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
        sender.join(timeout=30)
        assert first[0].status_code == 200
        retried = httpx.post(url(receiver), content=traces_request(1, 1), headers=PROTOBUF)
        assert retried.status_code == 200
    assert _stored() == 2 * 2


def test_logs_go_to_the_handler_and_are_404_without_one() -> None:
    record = LogRecord(event_name="gen_ai.evaluation.result")
    body = ExportLogsServiceRequest(
        resource_logs=[ResourceLogs(scope_logs=[ScopeLogs(log_records=[record])])]
    ).SerializeToString()
    with running_receiver() as receiver:
        missing = httpx.post(url(receiver, "/v1/logs"), content=body, headers=PROTOBUF)
        assert missing.status_code == 404 and _status(missing).code == 12  # UNIMPLEMENTED
    received: list[ExportLogsServiceRequest] = []
    with running_receiver(on_logs=lambda request, _grant: received.append(request)) as receiver:
        reply = httpx.post(url(receiver, "/v1/logs"), content=body, headers=PROTOBUF)
        assert reply.status_code == 200
    (request,) = received
    assert request.resource_logs[0].scope_logs[0].log_records[0].event_name == record.event_name
