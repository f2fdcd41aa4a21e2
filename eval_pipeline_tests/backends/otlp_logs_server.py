"""A real local OTLP logs endpoint (HTTP and gRPC) around an ``on_logs`` handler, for tests.

Stands in for the product receiver's logs endpoint until it lands: ``POST /v1/logs``
(protobuf) on a stdlib HTTP server and the gRPC ``LogsService`` on a grpcio server, both on
loopback, both handing the decoded ``ExportLogsServiceRequest`` to the handler, answering an
empty ``ExportLogsServiceResponse``, and a ``ValueError`` from it as bad data (HTTP 400, gRPC
``INVALID_ARGUMENT``), as the receiver does. Every request body that arrived is kept
(``received``) so a test can decode it with the OTLP protobuf classes.
"""

import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

Handler = Callable[[ExportLogsServiceRequest], None]


@dataclass
class LogsEndpoint:
    http_url: str
    grpc_target: str
    received: list[bytes] = field(default_factory=list)


@contextmanager
def logs_endpoint(on_logs: Handler) -> Iterator[LogsEndpoint]:
    received: list[bytes] = []
    lock = threading.Lock()

    def handle(body: bytes) -> ExportLogsServiceResponse:
        with lock:
            received.append(body)
            on_logs(ExportLogsServiceRequest.FromString(body))
            return ExportLogsServiceResponse()

    class Http(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.path != "/v1/logs":
                self.send_response(404)
                self.end_headers()
                return
            try:
                payload = handle(body).SerializeToString()
            except ValueError as exc:
                message = f"logs rejected: {exc}".encode()
                self.send_response(400)
                self.send_header("Content-Length", str(len(message)))
                self.end_headers()
                self.wfile.write(message)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    class Logs(logs_service_pb2_grpc.LogsServiceServicer):
        def Export(self, request: ExportLogsServiceRequest, context: Any) -> Any:
            try:
                return handle(request.SerializeToString())
            except ValueError as exc:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"logs rejected: {exc}")

    http = ThreadingHTTPServer(("127.0.0.1", 0), Http)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Logs(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield LogsEndpoint(f"http://127.0.0.1:{http.server_port}", f"127.0.0.1:{port}", received)
    finally:
        server.stop(0)
        http.shutdown()
        http.server_close()
