"""The README's Collector config is one ``serve`` accepts: read from the README, sent for real.

Contract: the config's pipelines name only components it defines; its OTLP/gRPC exporter
points at ``serve``'s gRPC port and its OTLP/HTTP exporter at the HTTP port (the exporter adds
``/v1/traces`` and ``/v1/logs``), both with the receiver's bearer token from the environment
variable ``serve`` reads. Then each exporter's settings (endpoint port, gzip, the
authorization header with the token filled in) are used to send spans to a running receiver
that requires that token, through the OpenTelemetry SDK's exporters: both are stored. No
Collector with an ``otlp`` exporter could be run here (README, "A Collector in front").
"""

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import yaml
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
    OTLPSpanExporter as GrpcExporter,
)
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
    OTLPSpanExporter as HttpExporter,
)
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter

from eval_pipeline.cli.serve import serve
from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.auth import TOKEN_ENV, Scope
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import running_receiver

README = Path(__file__).resolve().parents[3] / "README.md"
TOKEN = "collector-token-0123456789abcdef"


def _collector_config() -> dict[str, Any]:
    text = README.read_text()
    section = text[text.index("**A Collector in front**") :]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block is not None, "no yaml block after 'A Collector in front'"
    return yaml.safe_load(block.group(1))


def _default(option: str) -> Any:
    return next(p.default for p in serve.params if p.name == option)


def _header(exporter: dict[str, Any]) -> str:
    """The exporter's authorization header, with the Collector's ``${env:...}`` filled in."""
    value = exporter["headers"]["authorization"]
    assert value == f"Bearer ${{env:{TOKEN_ENV}}}"
    return value.replace(f"${{env:{TOKEN_ENV}}}", TOKEN)


def _send(exporter: SpanExporter) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("collector-test").start_as_current_span(
        "invoke_agent a", attributes={"gen_ai.operation.name": "invoke_agent"}
    ):
        pass
    provider.shutdown()


def test_the_readme_collector_config_is_what_serve_accepts() -> None:
    config = _collector_config()
    service = config["service"]["pipelines"]
    for pipeline in service.values():
        for kind in ("receivers", "processors", "exporters"):
            assert set(pipeline.get(kind, [])) <= set(config[kind]), (kind, pipeline)
    grpc_out = config["exporters"][service["traces"]["exporters"][0]]
    http_out = next(v for k, v in config["exporters"].items() if k.startswith("otlphttp"))
    assert urlsplit(f"//{grpc_out['endpoint']}").port == _default("grpc_port")
    assert grpc_out["compression"] == "gzip"
    http_url = urlsplit(http_out["endpoint"])
    assert http_url.port == _default("port") and http_url.path in ("", "/")

    with running_receiver(tokens={TOKEN: Scope.PRODUCTION}, grpc=True) as receiver:
        _send(
            GrpcExporter(
                endpoint=f"127.0.0.1:{receiver.grpc_port}",
                insecure=True,
                compression=grpc.Compression.Gzip,
                headers={"authorization": _header(grpc_out)},
                timeout=10,
            )
        )
        _send(
            HttpExporter(
                endpoint=f"http://127.0.0.1:{receiver.http_port}/v1/traces",
                compression=Compression.Gzip,
                headers={"authorization": _header(http_out)},
                timeout=10,
            )
        )
    assert len(TraceStore(current_home().store).read_spans(PRODUCTION)) == 2
