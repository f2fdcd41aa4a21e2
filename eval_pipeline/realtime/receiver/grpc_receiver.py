"""The OTLP/gRPC receiver (grpcio, port 4317): TraceService and LogsService.

Same write path as OTLP/HTTP (``write_path``): a trace request's bytes go to the one ingest
function unparsed (ingest decodes them), are stored durably and published before the
call returns. gzip-compressed requests are inflated by grpcio, within
``max_message_bytes`` after decompression; each request's bytes count against the receiver's
in-flight budget until it is answered (``inflight``: ``RESOURCE_EXHAUSTED`` past it). Codes per
the OTLP specification:
``UNAUTHENTICATED`` without a valid bearer token (``authorization`` metadata),
``INVALID_ARGUMENT`` for a request with no readable span, ``RESOURCE_EXHAUSTED`` (saturated)
and ``UNAVAILABLE`` (store or stream unavailable, a worker died) with ``RetryInfo`` in
``grpc-status-details-bin``, so exporters retry after the delay; ``UNIMPLEMENTED`` for logs
without a handler.
"""

import logging
from concurrent import futures
from typing import Any, NoReturn

import grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

from eval_pipeline.realtime.receiver.auth import Authenticator, Grant
from eval_pipeline.realtime.receiver.http_receiver import LogsHandler, trace_response, unreadable
from eval_pipeline.realtime.receiver.inflight import InflightBudget
from eval_pipeline.realtime.receiver.rpc_status import Refusal
from eval_pipeline.realtime.receiver.write_path import WritePath
from eval_pipeline.traces.ingest.ingest import OtlpRequest

LOG = logging.getLogger(__name__)
TRACE_SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"
LOGS_SERVICE = "opentelemetry.proto.collector.logs.v1.LogsService"


def _abort(context: grpc.ServicerContext, refusal: Refusal) -> NoReturn:
    status = refusal.status()
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
    context.abort(refusal.grpc_code, refusal.message)
    raise AssertionError("ServicerContext.abort returned")  # it raises, by its contract


def _grant(authenticator: Authenticator, context: grpc.ServicerContext) -> Grant:
    metadata = dict(context.invocation_metadata())
    grant = authenticator.grant(metadata.get("authorization"))
    if grant is None:
        raise Refusal(401, "missing or unknown bearer token")
    return grant


class _Services:
    def __init__(
        self,
        write_path: WritePath,
        authenticator: Authenticator,
        on_logs: LogsHandler | None,
        budget: InflightBudget,
    ) -> None:
        self._write_path = write_path
        self._authenticator = authenticator
        self._on_logs = on_logs
        self._budget = budget

    def export_traces(self, payload: bytes, context: grpc.ServicerContext) -> bytes:
        try:
            grant = _grant(self._authenticator, context)
            with self._budget.request() as held:
                held.take(len(payload))
                request = OtlpRequest(payload, "application/x-protobuf", "gRPC TraceService/Export")
                del payload
                accepted = self._write_path.submit_traces(request, grant).result()
                del request
            refusal = unreadable(accepted)
            if refusal is not None:
                raise refusal
        except Refusal as refusal:
            _abort(context, refusal)
        except Exception:
            LOG.exception("ingesting a gRPC request failed")
            _abort(context, Refusal(500, "internal error; see the receiver's log"))
        return trace_response(accepted).SerializeToString()  # type: ignore[no-any-return]

    def export_logs(
        self, request: ExportLogsServiceRequest, context: grpc.ServicerContext
    ) -> ExportLogsServiceResponse:
        try:
            if self._on_logs is None:
                raise Refusal(404, "this receiver stores no logs (no logs handler)")
            grant = _grant(self._authenticator, context)
            handler = self._on_logs
            self._write_path.submit(lambda: handler(request, grant)).result()
        except Refusal as refusal:
            _abort(context, refusal)
        except ValueError as exc:
            _abort(context, Refusal(400, f"logs rejected: {exc}"))
        except Exception:
            LOG.exception("handling gRPC logs failed")
            _abort(context, Refusal(500, "internal error; see the receiver's log"))
        return ExportLogsServiceResponse()


def make_grpc_server(
    write_path: WritePath,
    authenticator: Authenticator,
    address: str,
    *,
    on_logs: LogsHandler | None = None,
    max_message_bytes: int = 64 * 1024 * 1024,
    credentials: grpc.ServerCredentials | None = None,
    threads: int = 8,
    budget: InflightBudget | None = None,
) -> tuple[grpc.Server, int]:
    """A gRPC server (not started) serving OTLP on ``address``, and the port it bound.

    ``budget``: the request bytes in flight, shared with the HTTP server (its own if None).
    """
    services = _Services(write_path, authenticator, on_logs, budget or InflightBudget())
    traces = grpc.method_handlers_generic_handler(
        TRACE_SERVICE,
        {
            "Export": grpc.unary_unary_rpc_method_handler(
                services.export_traces,
                request_deserializer=None,  # raw bytes: ingest decodes them
                response_serializer=None,
            )
        },
    )
    logs = grpc.method_handlers_generic_handler(
        LOGS_SERVICE,
        {
            "Export": grpc.unary_unary_rpc_method_handler(
                services.export_logs,
                request_deserializer=ExportLogsServiceRequest.FromString,
                response_serializer=ExportLogsServiceResponse.SerializeToString,
            )
        },
    )
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.so_reuseport", 0),
    ]
    server = grpc.server(futures.ThreadPoolExecutor(threads), options=options)
    server.add_generic_rpc_handlers((traces, logs))
    if credentials is None:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, credentials)
    return server, port
