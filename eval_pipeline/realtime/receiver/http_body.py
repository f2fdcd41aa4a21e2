"""Reading an OTLP/HTTP request body within bounds: size, time, encoding, media type.

The body is read chunk by chunk and refused as soon as it is over ``max_body_bytes``
(compressed) or ``max_decompressed_bytes`` (after gzip or deflate): memory per request is
bounded by the limits, never by what a client sends. A declared ``Content-Length`` over the
limit is refused before any byte is read. The whole read has a deadline, so a client that
trickles its body is dropped (408) instead of holding a connection and a worker.
"""

import asyncio
import zlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from eval_pipeline.realtime.receiver.rpc_status import Refusal
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF_MEDIA_TYPES

_WBITS = {"gzip": 31, "x-gzip": 31, "deflate": 47}
"""zlib window bits: gzip framing, and zlib-or-gzip auto-detection for ``deflate``."""


@dataclass(frozen=True)
class BodyLimits:
    """Bounds on one request: bytes on the wire, bytes after decompression, seconds to read."""

    max_body_bytes: int = 32 * 1024 * 1024
    max_decompressed_bytes: int = 64 * 1024 * 1024
    body_timeout_s: float = 30.0


def media_kind(content_type: str | None) -> str:
    """``"protobuf"`` or ``"json"`` for an OTLP media type; any other type is a 415."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in PROTOBUF_MEDIA_TYPES:
        return "protobuf"
    if media == JSON or media.endswith("+json"):
        return "json"
    raise Refusal(
        415, f"unsupported Content-Type {media or '(none)'!r}: send application/x-protobuf or JSON"
    )


def _decompressor(encoding: str | None) -> "zlib._Decompress | None":
    name = (encoding or "identity").strip().lower()
    if name in ("", "identity", "none"):
        return None
    if name not in _WBITS:
        raise Refusal(415, f"unsupported Content-Encoding {name!r}: send gzip, deflate or none")
    return zlib.decompressobj(_WBITS[name])


async def read_body(
    chunks: AsyncIterator[bytes],
    *,
    content_length: str | None,
    content_encoding: str | None,
    limits: BodyLimits,
) -> bytes:
    """The decoded body, or a ``Refusal`` (400 bad compression, 408 too slow, 413, 415)."""
    decompressor = _decompressor(content_encoding)
    declared = int(content_length) if content_length and content_length.isdigit() else 0
    if declared > limits.max_body_bytes:
        raise _too_large("request body", limits.max_body_bytes)
    try:
        async with asyncio.timeout(limits.body_timeout_s):
            return await _read(chunks, decompressor, limits)
    except TimeoutError:
        raise Refusal(
            408, f"request body not received within {limits.body_timeout_s:g} s"
        ) from None


async def _read(
    chunks: AsyncIterator[bytes], decompressor: "zlib._Decompress | None", limits: BodyLimits
) -> bytes:
    received = 0
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        received += len(chunk)
        if received > limits.max_body_bytes:
            raise _too_large("request body", limits.max_body_bytes)
        if decompressor is None:
            parts.append(chunk)
            continue
        size += _inflate(decompressor, chunk, parts, limits.max_decompressed_bytes - size)
        if size > limits.max_decompressed_bytes:
            raise _too_large("decompressed body", limits.max_decompressed_bytes)
    if decompressor is not None:
        if not decompressor.eof:
            raise Refusal(400, "compressed body is truncated")
        parts.append(decompressor.flush())
    return b"".join(parts)


def _inflate(decompressor: "zlib._Decompress", chunk: bytes, parts: list[bytes], room: int) -> int:
    """Inflate ``chunk`` into ``parts``, never past ``room`` bytes; how many were added."""
    added = 0
    data = chunk
    try:
        while data and not decompressor.eof:
            # One byte over the room tells a body that is over the limit from one that fits.
            out = decompressor.decompress(data, room - added + 1)
            added += len(out)
            parts.append(out)
            if added > room:
                break
            data = decompressor.unconsumed_tail
    except zlib.error as exc:
        raise Refusal(400, f"body cannot be decompressed: {exc}") from None
    return added


def _too_large(what: str, limit: int) -> Refusal:
    return Refusal(413, f"{what} over {limit} bytes")
