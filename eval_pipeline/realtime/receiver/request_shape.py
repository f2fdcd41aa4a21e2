"""Whether a body that gave no span was an OTLP trace export request at all.

OTLP allows an empty export request (protobuf: zero bytes; JSON: ``{}`` or
``{"resourceSpans": []}``): it is answered 200. A body that decodes to no span and no error
but is not such a request (``{"hello": "world"}``, a logs request sent to ``/v1/traces``,
protobuf holding only unknown fields) was answered 200 ``{}`` while nothing was stored: the
sender believed its spans were taken. The receiver answers it 400, as its README promises
for a request with no readable span. Asked only of bodies that gave no span (the second parse
costs nothing on the usual path).
"""

import orjson
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from eval_pipeline.traces.decode.otlp import PROTOBUF_MEDIA_TYPES
from eval_pipeline.traces.ingest.ingest import OtlpRequest

_RESOURCE_SPANS = ("resourceSpans", "resource_spans")


def not_a_trace_request(request: OtlpRequest) -> str | None:
    """Why a body that gave no span is not an (empty) trace export request; None if it is one."""
    media = request.content_type.split(";", 1)[0].strip().lower()
    if media in PROTOBUF_MEDIA_TYPES:
        if not request.payload:
            return None
        try:
            parsed = ExportTraceServiceRequest.FromString(request.payload)
        except DecodeError:
            return "not an OTLP ExportTraceServiceRequest (protobuf)"
        if parsed.resource_spans:
            return None
        return "holds no resource_spans (only fields unknown to OTLP): no readable span"
    try:
        document = orjson.loads(request.payload)
    except orjson.JSONDecodeError:
        return "not JSON: no readable span"
    if not isinstance(document, dict):
        return "not a JSON object: no readable span"
    if not document or any(key in document for key in _RESOURCE_SPANS):
        return None
    return (
        f"holds no resourceSpans (fields {', '.join(sorted(document)[:5])}): not an OTLP "
        "trace export request, no readable span"
    )
