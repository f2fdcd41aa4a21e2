"""The production OTLP/HTTP receiver: ``POST /v1/traces`` (protobuf or JSON).

A request goes through the one ingest function, as files, importers and runners do (decode ->
normalise -> redact -> completeness -> trace store, partitioned by build and UTC day), and is
acknowledged only after its spans are stored, so an acknowledged span is never lost (Phoenix
acknowledges first). The response is an OTLP ``ExportTraceServiceResponse`` in the request's
encoding, with ``partial_success`` counting the rejected spans and naming the first problems;
a body that cannot be decoded at all is a 400. Spans without a build in their eval context are
stored under the ``production`` build; the report (``on_stored``) names incomplete traces.

Seam for the real-time plane: after storing, the receiver hands the accepted spans to the
``on_stored`` callback, where a stream publisher (NATS JetStream in production, DESIGN.md
section 10) and the bounded detectors attach. Never imports dagster.
"""

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.redact.redactor import RedactionPolicy
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore

MAX_BODY_BYTES = 32 * 1024 * 1024


def _response(report: IngestReport) -> ExportTraceServiceResponse:
    response = ExportTraceServiceResponse()
    if report.spans_rejected or report.errors:
        response.partial_success.rejected_spans = report.spans_rejected
        response.partial_success.error_message = "; ".join(str(e) for e in report.errors[:5])
    return response


def make_app(
    store_root: Path,
    *,
    policy: RedactionPolicy | None = None,
    on_stored: Callable[[IngestReport], None] | None = None,
) -> Starlette:
    """The receiver as an ASGI app writing into the trace store at ``store_root``."""
    store = TraceStore(store_root)

    async def traces(request: Request) -> Response:
        content_type = request.headers.get("content-type", "application/x-protobuf")
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return Response(f"request body over {MAX_BODY_BYTES} bytes", status_code=413)
        report = ingest(
            [OtlpRequest(body, content_type, "POST /v1/traces")],
            store=store,
            policy=policy,
            day=datetime.now(UTC).strftime("%Y-%m-%d"),
            default_build=PRODUCTION,
        )
        if report.spans_decoded == 0 and report.errors:
            return Response("; ".join(str(e) for e in report.errors[:5]), status_code=400)
        if on_stored is not None:
            on_stored(report)
        response = _response(report)
        if "json" in content_type:
            return JSONResponse(MessageToDict(response))
        return Response(response.SerializeToString(), media_type="application/x-protobuf")

    async def health(_: Request) -> Response:
        return Response(json.dumps({"status": "ok"}), media_type="application/json")

    return Starlette(
        routes=[
            Route("/v1/traces", traces, methods=["POST"]),
            Route("/healthz", health, methods=["GET"]),
        ]
    )
