"""Benchmark: score rows exported per second as ``gen_ai.evaluation.result`` events over OTLP.

``n_scores`` synthetic but real-shaped rows (judged and deterministic metrics, scored,
unscored and not-applicable rows, evidence and slices, ids of real width) go through
``otel_events_out.export_scores`` to a local OTLP logs endpoint on loopback, over HTTP and over
gRPC: each row becomes a log record, batches become requests, requests go over the wire, the
endpoint decodes them (``ExportLogsServiceRequest.FromString``, as any receiver must) and
answers. The reference, in the same run against the same endpoint, sends the same request
bodies already serialised (the transport and the receiver's decode alone), so ``ratio`` =
export throughput / reference throughput says what building the events costs. Medians of
``repeats`` runs (the machine is shared).
"""

import statistics
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
import httpx
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

from eval_pipeline.backends.otel_events_out import export_scores, requests_for
from eval_pipeline.scoring.score import Score

_METRICS = ("faithfulness", "tool_correctness", "argument_correctness", "handoff_quality")


def synthetic_scores(n_scores: int) -> list[Score]:
    """Score rows of ``n_scores // 4`` runs x four metrics, in the store's shape."""
    rows = []
    for index in range(n_scores):
        run, metric = divmod(index, len(_METRICS))
        judged = metric == 0
        status = "scored" if index % 10 else ("unscored" if judged else "not_applicable")
        rows.append(
            Score(
                metric_id=_METRICS[metric],
                value=(index % 100) / 100 if status == "scored" else None,
                status=status,
                scorer_id=_METRICS[metric],
                scorer_version=2,
                reason="no retrieved context" if status == "unscored" else "",
                trace_id=f"{run:032x}",
                span_ids=(f"{run:016x}",),
                build="bench-export",
                item_id=f"item-{run % 150}",
                run_index=run % 3,
                judge_fingerprint="offline-minilm:1:abc123" if judged else None,
                judge_backend="offline" if judged else None,
                evidence={"claims": 3, "unsupported": index % 2} if judged else {},
                slices={"intent": ("refund", "exchange", "status")[run % 3]},
            )
        )
    return rows


@contextmanager
def _endpoint() -> Iterator[tuple[str, str]]:
    reply = ExportLogsServiceResponse().SerializeToString()

    class Http(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            ExportLogsServiceRequest.FromString(
                self.rfile.read(int(self.headers["Content-Length"]))
            )
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    class Logs(logs_service_pb2_grpc.LogsServiceServicer):
        def Export(self, request: Any, context: Any) -> Any:
            return ExportLogsServiceResponse()

    http = ThreadingHTTPServer(("127.0.0.1", 0), Http)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Logs(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"http://127.0.0.1:{http.server_port}", f"127.0.0.1:{port}"
    finally:
        server.stop(0)
        http.shutdown()
        http.server_close()


def _reference(bodies: list[bytes], protocol: str, http_url: str, target: str) -> float:
    started = time.perf_counter()
    if protocol == "http":
        with httpx.Client() as client:
            for body in bodies:
                client.post(
                    f"{http_url}/v1/logs",
                    content=body,
                    headers={"Content-Type": "application/x-protobuf"},
                ).raise_for_status()
    else:
        with grpc.insecure_channel(target) as channel:
            export = channel.unary_unary(
                "/opentelemetry.proto.collector.logs.v1.LogsService/Export",
                request_serializer=None,
                response_deserializer=None,
            )
            for body in bodies:
                export(body)
    return time.perf_counter() - started


def run(n_scores: int = 50_000, repeats: int = 3) -> dict[str, Any]:
    """Events/s of the export per protocol, the reference's, and their ratio (medians)."""
    scores = synthetic_scores(n_scores)
    bodies = [r.SerializeToString() for r in requests_for(scores)]
    result: dict[str, Any] = {"scores": n_scores, "requests": len(bodies), "repeats": repeats}
    with _endpoint() as (http_url, target):
        for protocol in ("http", "grpc"):
            endpoint = http_url if protocol == "http" else target
            export_rates, reference_rates = [], []
            for _ in range(repeats):
                report = export_scores(scores, endpoint, protocol=protocol)
                export_rates.append(report.events_sent / report.seconds)
                reference_rates.append(n_scores / _reference(bodies, protocol, http_url, target))
            export_rate = statistics.median(export_rates)
            reference_rate = statistics.median(reference_rates)
            result[protocol] = {
                "events_per_s": round(export_rate),
                "reference_events_per_s": round(reference_rate),
                "ratio": round(export_rate / reference_rate, 3),
                "runs_events_per_s": [round(r) for r in export_rates],
            }
    return result
