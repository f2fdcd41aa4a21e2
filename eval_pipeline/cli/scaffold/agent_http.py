"""The same stand-in agent behind an HTTP endpoint, for agents that run as a service.

Start it (``python agent_http.py --port 8000``), then ``eval-pipeline run --suite suite.yaml
--build B --runner http://127.0.0.1:8000/run``. For each run the runner POSTs ``{"item",
"eval_context", "seed", "params", "otlp_traces_endpoint"}`` with a W3C ``traceparent`` header;
the agent continues that trace and exports its spans over OTLP/HTTP to
``otlp_traces_endpoint`` (a receiver the runner started); any 2xx answer is success. A deployed
agent does the same with its own OpenTelemetry set-up: export to the endpoint it is given.
"""

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent import AGENT, answer  # type: ignore[import-not-found]  # beside this file
from opentelemetry import context as otel_context
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

_PROVIDERS: dict[str, TracerProvider] = {}
_LOCK = threading.Lock()


def _provider(endpoint: str) -> TracerProvider:
    """One tracer provider per OTLP endpoint, exporting each span as it ends."""
    with _LOCK:
        if endpoint not in _PROVIDERS:
            provider = TracerProvider(resource=Resource.create({"service.name": AGENT}))
            provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
            _PROVIDERS[endpoint] = provider
        return _PROVIDERS[endpoint]


def handle(body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    """One run: the item's question answered under the caller's trace, spans exported."""
    item = body["item"]
    question = "\n".join(
        str(m.get("content", "")) for m in item.get("input_messages", []) if m.get("role") == "user"
    )
    carrier = {key.lower(): value for key, value in headers.items()}
    token = otel_context.attach(TraceContextTextMapPropagator().extract(carrier))
    try:
        tracer = _provider(body["otlp_traces_endpoint"]).get_tracer(AGENT)
        reply = answer(question, tracer, dict(body.get("eval_context") or {}))
    finally:
        otel_context.detach(token)
    return {"answer": reply}


class Handler(BaseHTTPRequestHandler):
    """``POST /run``: one run of one item; 500 with the error when the agent raises."""

    def do_POST(self) -> None:
        """Answer one runner request."""
        if self.path.rstrip("/") != "/run":
            self.send_error(404, "POST /run")
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            status, payload = 200, handle(body, dict(self.headers.items()))
        except Exception as exc:
            status, payload = 500, {"error": f"{type(exc).__name__}: {exc}"}
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the runner reports every failed run."""


def serve(port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """The agent's HTTP server on ``host:port`` (0: a free port), not yet serving."""
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def main() -> None:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description="The stand-in agent behind POST /run.")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    server = serve(args.port, args.host)
    print(f"{AGENT} on http://{args.host}:{server.server_address[1]}/run", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.server_close()


if __name__ == "__main__":
    main()
