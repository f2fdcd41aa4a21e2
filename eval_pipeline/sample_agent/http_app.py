"""The support agent behind HTTP, exporting its spans with the real OTLP/HTTP exporter.

``POST /run`` takes the HTTP runner's body (``item``, ``eval_context``, ``seed``, ``params``,
``otlp_traces_endpoint``), continues the caller's trace from the W3C ``traceparent`` header,
runs the item and answers ``{"answer", "actions", "build"}``. Spans leave through a
``BatchSpanProcessor`` + ``OTLPSpanExporter`` to the endpoint the server was started with
(else the one named in the request), exactly as a deployed agent would export them.

Run it: ``python -m eval_pipeline.sample_agent.http_app --port 8088 --otlp http://127.0.0.1:4318/v1/traces``.
"""

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from eval_pipeline.datasets.codec import item_from_dict
from eval_pipeline.sample_agent.app import run_support_agent
from eval_pipeline.traces import eval_context


class AgentServer:
    """A loopback HTTP server running the support agent (one tracer provider per endpoint)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        otlp_endpoint: str | None = None,
        export_delay_ms: int = 200,
    ) -> None:
        self.otlp_endpoint = otlp_endpoint
        self.export_delay_ms = export_delay_ms
        self._providers: dict[str, TracerProvider] = {}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/run":
                    self.send_error(404, "POST /run")
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                try:
                    result = server.handle(body, dict(self.headers.items()))
                except Exception as exc:
                    payload = json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode()
                    self.send_response(500)
                else:
                    payload = json.dumps(result).encode()
                    self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The ``/run`` URL."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/run"

    def provider(self, endpoint: str) -> TracerProvider:
        """The tracer provider exporting to ``endpoint`` (created once)."""
        with self._lock:
            provider = self._providers.get(endpoint)
            if provider is None:
                provider = TracerProvider(
                    resource=Resource.create({"service.name": "support-agent"})
                )
                provider.add_span_processor(
                    BatchSpanProcessor(
                        OTLPSpanExporter(endpoint=endpoint),
                        schedule_delay_millis=self.export_delay_ms,
                    )
                )
                self._providers[endpoint] = provider
            return provider

    def handle(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """Run one item from a runner request."""
        endpoint = self.otlp_endpoint or body.get("otlp_traces_endpoint")
        if not endpoint:
            raise ValueError("no OTLP endpoint configured or given in the request")
        carrier = {k.lower(): v for k, v in headers.items()}
        parent = TraceContextTextMapPropagator().extract(carrier)
        context = eval_context.from_attributes(body.get("eval_context") or {})
        tracer = self.provider(endpoint).get_tracer("eval_pipeline.sample_agent.http_app")
        return run_support_agent(
            item_from_dict(body["item"]),
            build=context.build_id or "baseline",
            seed=int(body.get("seed") or 0),
            tracer=tracer,
            context=context,
            params=body.get("params") or {},
            parent=parent,
        )

    def start(self) -> "AgentServer":
        """Serve in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Flush every exporter, stop serving and close the socket."""
        for provider in self._providers.values():
            provider.shutdown()
        self._server.shutdown()
        self._server.server_close()


def main() -> None:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8088)
    parser.add_argument("--otlp", default=None, help="OTLP/HTTP traces endpoint")
    args = parser.parse_args()
    server = AgentServer(port=args.port, otlp_endpoint=args.otlp).start()
    print(f"support agent on {server.url}")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
