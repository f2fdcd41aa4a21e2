"""One decoder for OTLP trace payloads, shared by file ingestion and the HTTP receiver.

``decode_otlp`` takes an ``ExportTraceServiceRequest`` body as protobuf
(``application/x-protobuf``) or JSON (``application/json``) and returns raw spans: ids as
lowercase hex, enums by name, attributes as plain Python values, not yet normalised (see
``traces.normalise``). Partial success follows OTLP ``partial_success``: a bad span is
rejected with an error naming the source, the span id (when known) and the field; every good
span is kept.
"""

from eval_pipeline.traces.decode.errors import (
    MAX_ATTRIBUTE_BYTES,
    DecodeError,
    DecodeResult,
)
from eval_pipeline.traces.decode.otlp_json import decode_json
from eval_pipeline.traces.decode.otlp_protobuf import decode_protobuf

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
PROTOBUF_MEDIA_TYPES = frozenset({PROTOBUF, "application/protobuf", "application/octet-stream"})
"""Media types decoded as protobuf."""


def decode_otlp(
    payload: bytes,
    *,
    content_type: str,
    source: str,
    max_attribute_bytes: int = MAX_ATTRIBUTE_BYTES,
) -> DecodeResult:
    """Decode one OTLP trace request.

    Args:
        payload: The request body.
        content_type: ``application/x-protobuf`` or ``application/json`` (parameters such as
            ``; charset=utf-8`` are ignored).
        source: Name used in errors (a file path, or ``http:<peer>``).
        max_attribute_bytes: Larger attribute values reject their span.

    Returns:
        The decoded spans and one error per rejected span (or per unreadable payload).
    """
    media = content_type.split(";", 1)[0].strip().lower()
    if media in PROTOBUF_MEDIA_TYPES:
        return decode_protobuf(payload, source, max_attribute_bytes)
    if media == JSON or media.endswith("+json"):
        return decode_json(payload, source, max_attribute_bytes)
    return DecodeResult(
        errors=[
            DecodeError(
                source,
                "content_type",
                f"unsupported content type {content_type!r}; expected {PROTOBUF} or {JSON}",
            )
        ]
    )


__all__ = ["JSON", "PROTOBUF", "PROTOBUF_MEDIA_TYPES", "DecodeError", "DecodeResult", "decode_otlp"]
