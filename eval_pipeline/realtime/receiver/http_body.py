"""Reading an OTLP/HTTP request body within bounds: size, time, encoding, media type, memory.

The body is read chunk by chunk and refused as soon as it is over ``max_body_bytes``
(compressed) or ``max_decompressed_bytes`` (after gzip or deflate): memory per request is
bounded by the limits, never by what a client sends. A declared ``Content-Length`` over the
limit is refused before any byte is read. Every piece kept (a chunk, or at most
``INFLATE_STEP`` inflated bytes) is first counted against the receiver's in-flight budget
(``inflight``, 429 past it), so the sum over requests is bounded too. The whole read has a
deadline, so a client that trickles its body is dropped (408) instead of holding a connection
and a worker.

Compression is read as ``gzip -d`` reads it: a gzip body of several members is inflated whole
(RFC 1952 allows members back to back; dropping all but the first lost spans silently), and
anything else after the compressed data (zero padding, garbage, a second zlib stream) is a 400.
"""

import asyncio
import zlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

from eval_pipeline.realtime.receiver.inflight import Reservation
from eval_pipeline.realtime.receiver.rpc_status import Refusal
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF_MEDIA_TYPES

_WBITS = {"gzip": 31, "x-gzip": 31, "deflate": 47}
"""zlib window bits: gzip framing, and zlib-or-gzip auto-detection for ``deflate``."""
_GZIP_MAGIC = b"\x1f\x8b"
INFLATE_STEP = 1024 * 1024
"""Inflated bytes produced (and counted against the budget) at a time: a 64 KB chunk of a
bomb would otherwise become 63 MB in one call, before anything could refuse it."""


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


class Inflater:
    """Inflates a gzip (every member) or deflate body fed in chunks, ``INFLATE_STEP`` at a time."""

    def __init__(self, encoding: str) -> None:
        """An inflater for ``encoding`` (a key of ``_WBITS``)."""
        self._wbits = _WBITS[encoding]
        self._members = self._wbits == _WBITS["gzip"]
        self._inflate = zlib.decompressobj(self._wbits)
        self._after = b""
        """Bytes after the end of a member: the next member's first bytes, or garbage."""

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The inflated pieces of ``data`` (each at most ``INFLATE_STEP`` bytes)."""
        try:
            while data:
                if self._inflate.eof:
                    data = self._next_member(self._after + data)
                    if not data:
                        return
                out = self._inflate.decompress(data, INFLATE_STEP)
                if out:
                    yield out
                if self._inflate.eof:
                    rest = self._inflate.unused_data
                    data = self._next_member(rest) if rest else b""
                else:
                    data = self._inflate.unconsumed_tail
        except zlib.error as exc:
            raise Refusal(400, f"body cannot be decompressed: {exc}") from None

    def _next_member(self, data: bytes) -> bytes:
        """``data`` as the start of the next gzip member (held while too short to tell)."""
        if self._members and len(data) < len(_GZIP_MAGIC) and _GZIP_MAGIC.startswith(data):
            self._after = data
            return b""
        if not self._members or not data.startswith(_GZIP_MAGIC):
            raise Refusal(400, f"{len(data)}+ bytes after the compressed body: not a gzip member")
        self._after = b""
        self._inflate = zlib.decompressobj(self._wbits)
        return data

    def finish(self) -> None:
        """Refuse a body that ended inside a member, or with bytes that start no member."""
        if not self._inflate.eof:
            raise Refusal(400, "compressed body is truncated")
        if self._after:
            raise Refusal(400, f"{len(self._after)} bytes after the compressed body: truncated")


def _inflater(encoding: str | None) -> Inflater | None:
    name = (encoding or "identity").strip().lower()
    if name in ("", "identity", "none"):
        return None
    if name not in _WBITS:
        raise Refusal(415, f"unsupported Content-Encoding {name!r}: send gzip, deflate or none")
    return Inflater(name)


async def read_body(
    chunks: AsyncIterator[bytes],
    *,
    content_length: str | None,
    content_encoding: str | None,
    limits: BodyLimits,
    reservation: Reservation,
) -> bytes:
    """The decoded body, or a ``Refusal`` (400 bad compression, 408 too slow, 413, 415, 429).

    Every byte kept is counted in ``reservation`` (the caller gives it back when the request
    is answered).
    """
    inflater = _inflater(content_encoding)
    declared = int(content_length) if content_length and content_length.isdigit() else 0
    if declared > limits.max_body_bytes:
        raise _too_large("request body", limits.max_body_bytes)
    try:
        async with asyncio.timeout(limits.body_timeout_s):
            return await _read(chunks, inflater, limits, reservation)
    except TimeoutError:
        raise Refusal(
            408, f"request body not received within {limits.body_timeout_s:g} s"
        ) from None


async def _read(
    chunks: AsyncIterator[bytes],
    inflater: Inflater | None,
    limits: BodyLimits,
    reservation: Reservation,
) -> bytes:
    received = 0
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        received += len(chunk)
        if received > limits.max_body_bytes:
            raise _too_large("request body", limits.max_body_bytes)
        for part in (chunk,) if inflater is None else inflater.feed(chunk):
            size += len(part)
            if size > limits.max_decompressed_bytes:
                raise _too_large("decompressed body", limits.max_decompressed_bytes)
            reservation.take(len(part))
            parts.append(part)
    if inflater is not None:
        inflater.finish()
    return b"".join(parts)


def _too_large(what: str, limit: int) -> Refusal:
    return Refusal(413, f"{what} over {limit} bytes")
