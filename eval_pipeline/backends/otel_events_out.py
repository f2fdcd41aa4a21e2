"""Scores out as ``gen_ai.evaluation.result`` log events over OTLP, HTTP or gRPC, to any endpoint.

``eval-pipeline export scores --build B --otlp-endpoint URL [--protocol http|grpc]``. Each score
row becomes one event (``evaluation_event.fill_record``), tied to the scored trace and span;
events go out in requests of ``BATCH`` records under one resource (``service.name`` =
``eval-pipeline``) and one scope (this module, with the package version). An endpoint that
answers ``partial_success`` has its rejected count and message reported; a transport failure
(refused connection, HTTP status >= 400, gRPC error) raises ``ExportError`` naming the endpoint
and how many events it had already acknowledged.

HTTP: ``URL`` is the collector's base (``http://host:4318``; ``/v1/logs`` is appended) or the full
logs path. gRPC: ``host:port`` (or ``http://host:port``), plaintext, as a local collector is.
"""

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from urllib.parse import urlsplit

import grpc
import httpx
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.logs.v1.logs_service_pb2_grpc import LogsServiceStub
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

from eval_pipeline.backends.evaluation_event import fill_record
from eval_pipeline.scoring.score import Score

BATCH = 1000
"""Events per OTLP request (a collector's default receive limit is far above this)."""
PROTOCOLS = ("http", "grpc")
SCOPE = "eval_pipeline.backends.otel_events_out"
TIMEOUT_S = 30.0


class ExportError(RuntimeError):
    """The endpoint could not be reached or refused a request (not bad input of ours)."""


@dataclass
class ExportReport:
    """What an export sent and what the endpoint said."""

    events_sent: int = 0
    requests: int = 0
    rejected: int = 0
    messages: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def events_per_second(self) -> float:
        """Export throughput (events acknowledged per wall second)."""
        return self.events_sent / self.seconds if self.seconds > 0 else 0.0


def _package_version() -> str:
    try:
        return version("eval-pipeline")
    except PackageNotFoundError:
        return "0"


def requests_for(
    scores: Sequence[Score],
    *,
    run_roots: Mapping[str, str] | None = None,
    batch: int = BATCH,
) -> Iterator[ExportLogsServiceRequest]:
    """The OTLP logs requests carrying ``scores`` (``batch`` events each).

    ``run_roots`` maps a trace id to its root span, the parent of a row that names no span.
    """
    roots = run_roots or {}
    resource = Resource(
        attributes=[KeyValue(key="service.name", value=AnyValue(string_value="eval-pipeline"))]
    )
    scope = InstrumentationScope(name=SCOPE, version=_package_version())
    now = time.time_ns()
    for start in range(0, len(scores), batch):
        request = ExportLogsServiceRequest()
        resource_logs = request.resource_logs.add()
        resource_logs.resource.CopyFrom(resource)
        scope_logs = resource_logs.scope_logs.add()
        scope_logs.scope.CopyFrom(scope)
        records = scope_logs.log_records
        for score in scores[start : start + batch]:
            fill_record(records.add(), score, now, run_root=roots.get(score.trace_id or ""))
        yield request


def logs_url(endpoint: str) -> str:
    """The OTLP/HTTP logs URL of an endpoint given as a base or as the full path."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--otlp-endpoint: not an http(s) URL: {endpoint!r}")
    return (
        endpoint
        if parts.path.rstrip("/").endswith("/v1/logs")
        else endpoint.rstrip("/") + "/v1/logs"
    )


def grpc_target(endpoint: str) -> str:
    """``host:port`` of a gRPC endpoint given as ``host:port`` or ``http://host:port``."""
    parts = urlsplit(endpoint if "//" in endpoint else f"//{endpoint}")
    if not parts.hostname or not parts.port:
        raise ValueError(f"--otlp-endpoint: a gRPC endpoint needs host:port, got {endpoint!r}")
    return f"{parts.hostname}:{parts.port}"


def _note(report: ExportReport, response: ExportLogsServiceResponse) -> None:
    if response.HasField("partial_success"):
        report.rejected += response.partial_success.rejected_log_records
        if response.partial_success.error_message:
            report.messages.append(response.partial_success.error_message)


def export_scores(
    scores: Sequence[Score],
    endpoint: str,
    *,
    protocol: str = "http",
    run_roots: Mapping[str, str] | None = None,
) -> ExportReport:
    """Send ``scores`` as evaluation events to an OTLP endpoint; the report counts them.

    Raises ``ValueError`` for an endpoint that cannot be meant (bad input) and ``ExportError``
    when the endpoint fails.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"--protocol: must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    report = ExportReport()
    started = time.perf_counter()
    if protocol == "http":
        url = logs_url(endpoint)
        with httpx.Client(timeout=TIMEOUT_S) as client:
            for request in requests_for(scores, run_roots=run_roots):
                try:
                    reply = client.post(
                        url,
                        content=request.SerializeToString(),
                        headers={"Content-Type": "application/x-protobuf"},
                    )
                except httpx.HTTPError as exc:
                    raise ExportError(f"{url}: {exc} ({report.events_sent} event(s) sent)") from exc
                if reply.status_code >= 400:
                    raise ExportError(
                        f"{url}: HTTP {reply.status_code} {reply.text[:200]!r} "
                        f"({report.events_sent} event(s) sent)"
                    )
                response = ExportLogsServiceResponse()
                if reply.content and "protobuf" in reply.headers.get("content-type", ""):
                    response.ParseFromString(reply.content)
                _note(report, response)
                report.requests += 1
                report.events_sent += len(request.resource_logs[0].scope_logs[0].log_records)
    else:
        target = grpc_target(endpoint)
        with grpc.insecure_channel(target) as channel:
            stub = LogsServiceStub(channel)
            for request in requests_for(scores, run_roots=run_roots):
                try:
                    response = stub.Export(request, timeout=TIMEOUT_S)
                except grpc.RpcError as exc:
                    raise ExportError(
                        f"{target}: gRPC {exc.code().name}: {exc.details()} "  # type: ignore[attr-defined]
                        f"({report.events_sent} event(s) sent)"
                    ) from exc
                _note(report, response)
                report.requests += 1
                report.events_sent += len(request.resource_logs[0].scope_logs[0].log_records)
    report.seconds = time.perf_counter() - started
    return report
