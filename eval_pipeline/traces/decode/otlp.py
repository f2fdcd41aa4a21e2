"""One decoder for OTLP trace payloads, shared by file ingestion and the HTTP receiver.

``decode_raw`` takes an ``ExportTraceServiceRequest`` body as protobuf
(``application/x-protobuf``) or JSON (``application/json``) and returns ``RawSpan`` records:
ids as lowercase hex, enums by name, attributes as plain Python values, not yet normalised
(see ``traces.normalise``). ``decode_otlp`` gives the same as raw ``Span`` objects. Partial
success follows OTLP ``partial_success``: a bad span is rejected with an error naming the
source, the span id (when known) and the field; every good span is kept.
"""

from eval_pipeline.traces.decode.errors import (
    MAX_ATTRIBUTE_BYTES,
    DecodeError,
    DecodeResult,
)
from eval_pipeline.traces.decode.otlp_json import decode_json
from eval_pipeline.traces.decode.otlp_protobuf import decode_protobuf
from eval_pipeline.traces.decode.protobuf_salvage import salvage
from eval_pipeline.traces.decode.raw_span import RawBatch

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
PROTOBUF_MEDIA_TYPES = frozenset({PROTOBUF, "application/protobuf", "application/octet-stream"})
"""Media types decoded as protobuf."""


def decode_raw(
    payload: bytes,
    *,
    content_type: str,
    source: str,
    max_attribute_bytes: int = MAX_ATTRIBUTE_BYTES,
) -> RawBatch:
    """Decode one OTLP trace request to ``RawSpan`` records.

    Args:
        payload: The request body.
        content_type: ``application/x-protobuf`` or ``application/json`` (parameters such as
            ``; charset=utf-8`` are ignored).
        source: Name used in errors (a file path, or ``http:<peer>``).
        max_attribute_bytes: Larger attribute values reject their span.

    Returns:
        The decoded records and one error per rejected span (or per unreadable payload).
    """
    media = content_type.split(";", 1)[0].strip().lower()
    if media in PROTOBUF_MEDIA_TYPES:
        batch = decode_protobuf(payload, source, max_attribute_bytes)
        return salvage(payload, source, max_attribute_bytes) if batch is None else batch
    if media == JSON or media.endswith("+json"):
        return decode_json(payload, source, max_attribute_bytes)
    return RawBatch(
        errors=[
            DecodeError(
                source,
                "content_type",
                f"unsupported content type {content_type!r}; expected {PROTOBUF} or {JSON}",
            )
        ]
    )


def decode_otlp(
    payload: bytes,
    *,
    content_type: str,
    source: str,
    max_attribute_bytes: int = MAX_ATTRIBUTE_BYTES,
) -> DecodeResult:
    """``decode_raw``, its records as raw (not yet normalised) ``Span`` objects."""
    return decode_raw(
        payload,
        content_type=content_type,
        source=source,
        max_attribute_bytes=max_attribute_bytes,
    ).as_result()


__all__ = [
    "JSON",
    "PROTOBUF",
    "PROTOBUF_MEDIA_TYPES",
    "DecodeError",
    "DecodeResult",
    "decode_otlp",
    "decode_raw",
]
