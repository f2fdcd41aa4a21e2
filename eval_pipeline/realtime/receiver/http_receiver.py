"""The OTLP/HTTP receiver: ``POST /v1/traces`` and ``/v1/logs``, liveness and readiness.

A trace request is authenticated (``auth``), its body read within bounds (``http_body``: 413
over the size, 415 for another media type or encoding, 408 when too slow, 429 past the
receiver's budget of bytes in flight, ``inflight``), then handed to the
write path (``write_path``: bounded worker pool, durable store, stream) and acknowledged only
after its spans are stored and published. The response is an OTLP
``ExportTraceServiceResponse`` in the request's encoding, with ``partial_success`` counting the
rejected spans and naming the first problems (and any build id not honoured); a body with no
readable span is a 400. Every refusal is a ``google.rpc.Status`` in the request's encoding, with
``Retry-After`` when the sender should retry (429 saturated, 503 store or stream unavailable).

``/healthz`` (liveness) answers from the event loop whatever the workers do: 200 ``ok`` while
the write path can write, 503 with the reason when it cannot (dead workers being replaced, a
store or stream refusing writes); ``/readyz`` (readiness) is 503 with the reason also while the
write path is saturated or the in-flight budget is spent. ``/v1/logs`` hands the decoded
``ExportLogsServiceRequest`` to ``on_logs`` (404 without one). ``/v1/feedback`` takes users'
ratings of traces into the state database (``feedback_route``). Never imports dagster.
"""

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path

from google.protobuf.json_format import MessageToDict, Parse, ParseError
from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.auth import Authenticator, Grant
from eval_pipeline.realtime.receiver.feedback_route import feedback_endpoint
from eval_pipeline.realtime.receiver.http_body import BodyLimits, media_kind, read_body
from eval_pipeline.realtime.receiver.inflight import InflightBudget, Reservation
from eval_pipeline.realtime.receiver.rpc_status import Refusal
from eval_pipeline.realtime.receiver.write_path import WritePath
from eval_pipeline.realtime.receiver.writer import Accepted, SpanPublisher, Writer
from eval_pipeline.traces.ingest.ingest import OtlpRequest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.redact.redactor import RedactionPolicy, Redactor, load_policy
from eval_pipeline.traces.store.trace_store import TraceStore

LOG = logging.getLogger(__name__)
LogsHandler = Callable[[ExportLogsServiceRequest, Grant], None]
"""Takes decoded OTLP logs (e.g. ``gen_ai.evaluation.result`` events) and the sender's grant
(what its token may write); raises ValueError for bad data."""
PROTOBUF = "application/x-protobuf"


def trace_response(accepted: Accepted) -> ExportTraceServiceResponse:
    """The OTLP response: ``partial_success`` for rejected spans and builds not honoured."""
    report = accepted.report
    response = ExportTraceServiceResponse()
    problems = [str(e) for e in report.errors[:5]] + accepted.notes
    if report.spans_rejected or problems:
        response.partial_success.rejected_spans = report.spans_rejected
        response.partial_success.error_message = "; ".join(problems)
    return response


def unreadable(accepted: Accepted) -> Refusal | None:
    """A 400 when the request held no readable span at all."""
    report = accepted.report
    if report.spans_decoded == 0 and report.errors:
        return Refusal(400, "; ".join(str(e) for e in report.errors[:5]))
    return None


def _reply(message: Message, json_encoded: bool, status: int = 200) -> Response:
    if json_encoded:
        body = json.dumps(MessageToDict(message)).encode()
        return Response(body, status_code=status, media_type="application/json")
    return Response(message.SerializeToString(), status_code=status, media_type=PROTOBUF)


def _refuse(refusal: Refusal, json_encoded: bool) -> Response:
    return Response(
        refusal.body(json_encoded),
        status_code=refusal.http_status,
        headers=refusal.headers(),
        media_type="application/json" if json_encoded else PROTOBUF,
    )


def make_http_app(
    write_path: WritePath,
    authenticator: Authenticator,
    *,
    limits: BodyLimits | None = None,
    on_logs: LogsHandler | None = None,
    feedback_state_url: str | None = None,
    policy: RedactionPolicy | None = None,
    budget: InflightBudget | None = None,
) -> Starlette:
    """The receiver as an ASGI app over a write path shared with the gRPC server.

    ``feedback_state_url``: the state database ``/v1/feedback`` writes (the home's by default);
    ``policy``: the redaction policy of feedback notes (the default policy when None);
    ``budget``: the bytes in flight, shared with the gRPC server (a budget of its own if None).
    """
    limits = limits or BodyLimits()
    budget = budget or InflightBudget()

    async def admitted(request: Request, held: Reservation) -> tuple[Grant, bytes, bool]:
        """Authenticate, type-check and read the body into ``held``, or raise the ``Refusal``."""
        grant = authenticator.grant(request.headers.get("authorization"))
        if grant is None:
            raise Refusal(401, "missing or unknown bearer token")
        json_encoded = media_kind(request.headers.get("content-type")) == "json"
        body = await read_body(
            request.stream(),
            content_length=request.headers.get("content-length"),
            content_encoding=request.headers.get("content-encoding"),
            limits=limits,
            reservation=held,
        )
        return grant, body, json_encoded

    async def traces(request: Request) -> Response:
        json_encoded = "json" in request.headers.get("content-type", "")
        try:
            with budget.request() as held:
                return _reply(trace_response(await _ingested(request, held)), json_encoded)
        except Refusal as refusal:
            return _refuse(refusal, json_encoded)
        except Exception:
            LOG.exception("ingesting a request failed")
            return _refuse(Refusal(500, "internal error; see the receiver's log"), json_encoded)

    async def _ingested(request: Request, held: Reservation) -> Accepted:
        grant, body, _ = await admitted(request, held)
        otlp = OtlpRequest(body, request.headers["content-type"], "POST /v1/traces")
        future = write_path.submit_traces(otlp, grant)
        del body, otlp
        accepted = await asyncio.wrap_future(future)
        refusal = unreadable(accepted)
        if refusal is not None:
            raise refusal
        return accepted

    async def logs(request: Request) -> Response:
        json_encoded = "json" in request.headers.get("content-type", "")
        try:
            if on_logs is None:
                raise Refusal(404, "this receiver stores no logs (no logs handler)")
            with budget.request() as held:
                grant, body, json_encoded = await admitted(request, held)
                decoded = decode_logs(body, json_encoded)
                handler = on_logs
                await asyncio.wrap_future(write_path.submit(lambda: handler(decoded, grant)))
        except Refusal as refusal:
            return _refuse(refusal, json_encoded)
        except ValueError as exc:
            return _refuse(Refusal(400, f"logs rejected: {exc}"), json_encoded)
        except Exception:
            LOG.exception("handling logs failed")
            return _refuse(Refusal(500, "internal error; see the receiver's log"), json_encoded)
        return _reply(ExportLogsServiceResponse(), json_encoded)

    async def health(_: Request) -> Response:
        problem = write_path.problem()
        if problem is not None:
            return _status(503, "failing", problem)
        return _status(200, "ok")

    async def ready(_: Request) -> Response:
        problem = write_path.problem()
        if problem is not None:
            return _status(503, "unavailable", problem)
        if write_path.saturated:
            return _status(503, "saturated", "every write-path worker is busy and its queue full")
        if budget.held >= budget.limit_bytes:
            return _status(503, "saturated", "the budget of request bytes in flight is spent")
        return _status(200, "ready")

    return Starlette(
        routes=[
            Route("/v1/traces", traces, methods=["POST"]),
            Route("/v1/logs", logs, methods=["POST"]),
            Route(
                "/v1/feedback",
                feedback_endpoint(
                    admitted,
                    budget,
                    write_path.submit,
                    feedback_state_url or current_home().state_url,
                    Redactor(policy or load_policy()),
                ),
                methods=["POST"],
            ),
            Route("/healthz", health, methods=["GET"]),
            Route("/readyz", ready, methods=["GET"]),
        ]
    )


def _status(code: int, status: str, reason: str | None = None) -> Response:
    body = {"status": status} if reason is None else {"status": status, "reason": reason}
    return Response(json.dumps(body), code, media_type="application/json")


def decode_logs(body: bytes, json_encoded: bool) -> ExportLogsServiceRequest:
    """An OTLP logs request body, decoded; a ``Refusal`` 400 when it cannot be."""
    request = ExportLogsServiceRequest()
    try:
        if json_encoded:
            Parse(body, request, ignore_unknown_fields=True)
        else:
            request.ParseFromString(body)
    except (DecodeError, ParseError, UnicodeDecodeError, RecursionError) as exc:
        raise Refusal(400, f"logs request cannot be decoded: {exc!s:.200}") from None
    return request


def make_app(
    store_root: Path,
    *,
    policy: RedactionPolicy | None = None,
    on_stored: Callable[[IngestReport], None] | None = None,
    stream: SpanPublisher | None = None,
    authenticator: Authenticator | None = None,
    limits: BodyLimits | None = None,
    on_logs: LogsHandler | None = None,
    state_url: str | None = None,
) -> Starlette:
    """``make_http_app`` over a new write path into the store at ``store_root`` (loopback).

    ``state_url`` names the state database holding the build registry (the home's by default).
    """
    writer = Writer(
        TraceStore(store_root),
        registry=BuildRegistry(state_url or current_home().state_url),
        stream=stream,
        policy=policy,
    )
    write_path = WritePath(writer, on_stored=on_stored)
    return make_http_app(
        write_path,
        authenticator or Authenticator({}, host="127.0.0.1"),
        limits=limits,
        on_logs=on_logs,
        policy=policy,
    )
