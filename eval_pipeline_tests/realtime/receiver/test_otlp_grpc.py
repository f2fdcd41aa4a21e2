"""OTLP/gRPC shares the one write path: SDK exporter in, spans stored, codes per the spec.

Contract: the OpenTelemetry SDK's own gRPC exporter, gzip-compressed, gets its spans stored
before the call returns; a request with no readable span is ``INVALID_ARGUMENT``; a full
write path is ``RESOURCE_EXHAUSTED`` with ``RetryInfo`` in the status details (so exporters
retry after the delay); logs are ``UNIMPLEMENTED`` without a handler and reach it with one.
"""

import fcntl
import threading

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.grpc_receiver import LOGS_SERVICE, TRACE_SERVICE
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import running_receiver, traces_request


def _stored() -> int:
    return len(TraceStore(current_home().store).read_spans(PRODUCTION))


def test_the_sdk_grpc_exporter_with_gzip_gets_its_spans_stored() -> None:
    with running_receiver(grpc=True) as receiver:
        exporter = OTLPSpanExporter(
            endpoint=f"127.0.0.1:{receiver.grpc_port}",
            insecure=True,
            compression=grpc.Compression.Gzip,
            timeout=10,
        )
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracer = provider.get_tracer("test")
        with (
            tracer.start_as_current_span(
                "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}
            ),
            tracer.start_as_current_span(
                "execute_tool t", attributes={"gen_ai.operation.name": "execute_tool"}
            ),
        ):
            pass
        provider.shutdown()
    assert _stored() == 2


def test_grpc_codes_bad_data_saturation_and_logs() -> None:
    store = TraceStore(current_home().ensure().store)
    lock_file = store.build_dir(PRODUCTION) / ".write.lock"
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    received: list[ExportLogsServiceRequest] = []
    with (
        running_receiver(
            grpc=True, workers=1, queue=0, on_logs=lambda request, _grant: received.append(request)
        ) as receiver,
        grpc.insecure_channel(f"127.0.0.1:{receiver.grpc_port}") as channel,
    ):
        export = channel.unary_unary(f"/{TRACE_SERVICE}/Export")
        with pytest.raises(grpc.RpcError) as bad:
            export(b"\x0a\xff\xff", timeout=10)
        assert bad.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        with open(lock_file, "ab") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # the one worker blocks inside the store
            first = threading.Thread(target=export, args=(traces_request(0, 1),))
            first.start()
            while not receiver.write_path.saturated:
                threading.Event().wait(0.01)
            with pytest.raises(grpc.RpcError) as full:
                export(traces_request(1, 1), timeout=10)
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
            first.join(timeout=30)
        assert full.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        details = dict(full.value.trailing_metadata())["grpc-status-details-bin"]
        (detail,) = status_pb2.Status.FromString(details).details
        info = error_details_pb2.RetryInfo()
        assert detail.Unpack(info) and info.retry_delay.seconds == 1
        logs = channel.unary_unary(
            f"/{LOGS_SERVICE}/Export",
            request_serializer=ExportLogsServiceRequest.SerializeToString,
        )
        logs(ExportLogsServiceRequest(), timeout=10)
    assert _stored() == 2 and len(received) == 1
    with (
        running_receiver(grpc=True) as receiver,
        grpc.insecure_channel(f"127.0.0.1:{receiver.grpc_port}") as channel,
    ):
        logs = channel.unary_unary(
            f"/{LOGS_SERVICE}/Export",
            request_serializer=ExportLogsServiceRequest.SerializeToString,
        )
        with pytest.raises(grpc.RpcError) as missing:
            logs(ExportLogsServiceRequest(), timeout=10)
        assert missing.value.code() is grpc.StatusCode.UNIMPLEMENTED
