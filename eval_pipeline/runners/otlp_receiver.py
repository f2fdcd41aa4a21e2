"""A minimal in-process OTLP/HTTP receiver for the HTTP runner: ``POST /v1/traces``.

Agents under test export their spans here with any OTLP/HTTP protobuf exporter (the runner
points the agent's ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` at ``endpoint``). Spans are decoded
with the runners' OTLP path and routed to the run waiting for their trace id; a request is
acknowledged only after its spans were handed over, so an acknowledged span is never lost.
This is the runner's collection point, not the production receiver (``eval-pipeline serve``).
"""

import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from eval_pipeline.runners.otlp_spans import decode_request
from eval_pipeline.traces.model import Span

MAX_UNCLAIMED_TRACES = 1000
"""Traces nobody waits for (yet) kept at most; the oldest are dropped first."""


class TraceWaiter:
    """Spans received for one trace, with a wait for the trace to settle."""

    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        self._spans: list[Span] = []
        self._changed = threading.Condition()
        self._last_arrival = 0.0

    def add(self, spans: list[Span]) -> None:
        """Append spans (called by the receiver)."""
        with self._changed:
            self._spans.extend(spans)
            self._last_arrival = time.monotonic()
            self._changed.notify_all()

    def spans(self) -> list[Span]:
        """The spans received so far."""
        with self._changed:
            return list(self._spans)

    def wait_for_root(
        self, parent_span_id: str, *, timeout_s: float, settle_s: float = 0.2
    ) -> list[Span]:
        """Wait for the trace's root, then until nothing new came for ``settle_s``.

        The root is the span parented on ``parent_span_id``; whatever arrived (possibly
        nothing) is returned at ``timeout_s`` at the latest.
        """
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while True:
                now = time.monotonic()
                has_root = any(s.parent_span_id == parent_span_id for s in self._spans)
                if has_root and now - self._last_arrival >= settle_s:
                    return list(self._spans)
                if now >= deadline:
                    return list(self._spans)
                wait = settle_s if has_root else deadline - now
                self._changed.wait(min(wait, deadline - now, settle_s))


class SpanReceiver:
    """An OTLP/HTTP (protobuf) receiver on a loopback port, routing spans by trace id."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._waiters: dict[str, TraceWaiter] = {}
        self._unclaimed: dict[str, list[Span]] = defaultdict(list)
        self._lock = threading.Lock()
        self.rejected: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/traces":
                    self.send_error(404, "only /v1/traces")
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if "protobuf" not in (self.headers.get("Content-Type") or ""):
                    self.send_error(415, "OTLP/HTTP protobuf only")
                    return
                try:
                    spans = decode_request(body, source="http-runner-receiver")
                except ValueError as exc:
                    receiver.rejected.append(str(exc))
                    self.send_error(400, str(exc)[:200])
                    return
                receiver.deliver(spans)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="otlp-receiver"
        )

    @property
    def endpoint(self) -> str:
        """The full traces URL, for ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1/traces"

    def start(self) -> "SpanReceiver":
        """Start serving in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "SpanReceiver":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def expect(self, trace_id: str) -> TraceWaiter:
        """Register interest in a trace (spans that already arrived are handed over)."""
        waiter = TraceWaiter(trace_id)
        with self._lock:
            self._waiters[trace_id] = waiter
            early = self._unclaimed.pop(trace_id, [])
        if early:
            waiter.add(early)
        return waiter

    def forget(self, trace_id: str) -> None:
        """Stop routing a trace; later spans of it are dropped."""
        with self._lock:
            self._waiters.pop(trace_id, None)

    def deliver(self, spans: list[Span]) -> None:
        """Route decoded spans to their waiters (unknown traces are kept, briefly, unclaimed)."""
        grouped: dict[str, list[Span]] = defaultdict(list)
        for span in spans:
            grouped[span.trace_id].append(span)
        for trace_id, group in grouped.items():
            with self._lock:
                waiter = self._waiters.get(trace_id)
                if waiter is None:
                    self._unclaimed[trace_id].extend(group)
                    while len(self._unclaimed) > MAX_UNCLAIMED_TRACES:
                        self._unclaimed.pop(next(iter(self._unclaimed)))
                    continue
            waiter.add(group)
