"""OTLP <-> spans for the runners: the decode and normalise stages of ingest, shared by both.

The Python runner encodes the SDK's finished spans with the exporter's own ``encode_spans``
(the exact OTLP/HTTP body an agent would send); the HTTP runner receives that body from the
agent. Both decode it here with the project's one OTLP decoder and normaliser, so a runner can
find the run's root and stamp its eval context; the run's spans then go, through the runner's
sink, to the one ingest function (``traces.ingest.ingest``), which redacts, judges and stores
them like any other trace (normalising twice changes nothing).
"""

from collections.abc import Sequence

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import ReadableSpan

from eval_pipeline.traces.decode.otlp import PROTOBUF, decode_otlp
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.normalise.normaliser import normalise_spans


def encode_readable(spans: Sequence[ReadableSpan]) -> bytes:
    """The OTLP/HTTP protobuf body for SDK spans (what the OTLP exporter would POST)."""
    return bytes(encode_spans(spans).SerializeToString())


def decode_request(body: bytes, *, source: str = "runner") -> list[Span]:
    """Decode an OTLP/HTTP protobuf body into normalised spans (not yet redacted).

    Raises:
        ValueError: the body is not a valid ``ExportTraceServiceRequest``, or the decoder
            rejected spans in it (runner traces must decode cleanly).
    """
    result = decode_otlp(body, content_type=PROTOBUF, source=source)
    if result.errors:
        raise ValueError(f"{source}: OTLP decode rejected spans: {result.errors[:3]}")
    return normalise_spans(result.spans)
