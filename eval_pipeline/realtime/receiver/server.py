"""The receiver's servers: OTLP/HTTP (uvicorn) and OTLP/gRPC (grpcio) over one write path.

``Receiver`` binds both (HTTP 4318, gRPC 4317 by default), with the header deadline for slow
clients (``slow_clients``), the body limits (``http_body``), one budget of request bytes in
flight for both (``inflight``) and optional TLS: uvicorn's
``ssl_certfile``/``ssl_keyfile`` for HTTP, ``grpc.ssl_server_credentials`` from the same files
for gRPC. ``run`` serves until interrupted (the CLI); ``running`` serves in background threads
(tests, ``bench serve``).
"""

import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
import uvicorn

from eval_pipeline.bounded_read import read_bounded
from eval_pipeline.realtime.receiver.auth import Authenticator
from eval_pipeline.realtime.receiver.grpc_receiver import make_grpc_server
from eval_pipeline.realtime.receiver.http_body import BodyLimits
from eval_pipeline.realtime.receiver.http_receiver import LogsHandler, make_http_app
from eval_pipeline.realtime.receiver.inflight import InflightBudget
from eval_pipeline.realtime.receiver.slow_clients import header_deadline_protocol
from eval_pipeline.realtime.receiver.write_path import WritePath
from eval_pipeline.traces.redact.redactor import RedactionPolicy


def _exit_on_signal(number: int, _: object) -> None:
    raise SystemExit(128 + number)


@dataclass(frozen=True)
class Endpoints:
    """Where a receiver listens (ports as bound: 0 asks the system for a free one)."""

    host: str = "127.0.0.1"
    http_port: int = 4318
    grpc_port: int | None = 4317
    """None: no gRPC server."""
    ssl_certfile: Path | None = None
    ssl_keyfile: Path | None = None


class Receiver:
    """The HTTP and gRPC servers over one write path, started and stopped together."""

    def __init__(
        self,
        write_path: WritePath,
        authenticator: Authenticator,
        endpoints: Endpoints,
        *,
        limits: BodyLimits | None = None,
        header_timeout_s: float = 10.0,
        on_logs: LogsHandler | None = None,
        policy: RedactionPolicy | None = None,
        budget: InflightBudget | None = None,
    ) -> None:
        """Bind the sockets now (so ``http_port``/``grpc_port`` are known); serve later.

        ``policy`` redacts feedback notes (the default policy when None); ``budget`` bounds the
        request bytes both servers hold at once (``inflight``; the default budget when None).
        """
        self.write_path = write_path
        self.endpoints = endpoints
        limits = limits or BodyLimits()
        self._socket = socket.create_server(
            (endpoints.host, endpoints.http_port),
            family=socket.AF_INET6 if ":" in endpoints.host else socket.AF_INET,
            backlog=1024,
        )
        self.http_port = int(self._socket.getsockname()[1])
        tls = endpoints.ssl_certfile is not None
        self.budget = budget or InflightBudget()
        app = make_http_app(
            write_path,
            authenticator,
            limits=limits,
            on_logs=on_logs,
            policy=policy,
            budget=self.budget,
        )
        self._http = uvicorn.Server(
            uvicorn.Config(
                app,
                http=header_deadline_protocol(header_timeout_s),
                log_level="warning",
                timeout_keep_alive=30,
                ssl_certfile=str(endpoints.ssl_certfile) if tls else None,
                ssl_keyfile=str(endpoints.ssl_keyfile) if endpoints.ssl_keyfile else None,
            )
        )
        self._grpc: grpc.Server | None = None
        self.grpc_port: int | None = None
        if endpoints.grpc_port is not None:
            credentials = None
            if tls:
                key = read_bounded(endpoints.ssl_keyfile or endpoints.ssl_certfile or "")
                chain = read_bounded(endpoints.ssl_certfile or "")
                credentials = grpc.ssl_server_credentials([(key, chain)])
            self._grpc, self.grpc_port = make_grpc_server(
                write_path,
                authenticator,
                f"{endpoints.host}:{endpoints.grpc_port}",
                on_logs=on_logs,
                max_message_bytes=limits.max_decompressed_bytes,
                credentials=credentials,
                budget=self.budget,
            )

    @property
    def http_url(self) -> str:
        """The HTTP base URL (loopback form of the bound host)."""
        scheme = "https" if self.endpoints.ssl_certfile else "http"
        host = self.endpoints.host
        host = f"[{host}]" if ":" in host else host
        return f"{scheme}://{host}:{self.http_port}"

    def run(self) -> None:
        """Serve until interrupted, then finish the requests in the write path."""
        if threading.current_thread() is threading.main_thread():
            # uvicorn re-raises SIGTERM once it has stopped; as SystemExit it unwinds here,
            # so the gRPC server and the worker pool are stopped, not orphaned.
            signal.signal(signal.SIGTERM, _exit_on_signal)
        if self._grpc is not None:
            self._grpc.start()
        try:
            self._http.run(sockets=[self._socket])
        finally:
            if self._grpc is not None:
                self._grpc.stop(grace=5).wait()
            self.write_path.close()

    @contextmanager
    def running(self) -> Iterator["Receiver"]:
        """Serve in a background thread for the duration of the block."""
        thread = threading.Thread(target=self.run, name="receiver", daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not self._http.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.02)
        if not self._http.started:
            raise RuntimeError("the receiver did not start")
        try:
            yield self
        finally:
            self._http.should_exit = True
            thread.join(timeout=30)
