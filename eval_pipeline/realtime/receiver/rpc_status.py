"""Refusals of the receiver, and their ``google.rpc.Status`` bodies (OTLP/HTTP and OTLP/gRPC).

The OTLP specification says how a server refuses a request: an HTTP status (400 bad data, 401
not authenticated, 413 too large, 415 unsupported type, 429/503 retry later with
``Retry-After``) or a gRPC code (``INVALID_ARGUMENT``, ``UNAUTHENTICATED``,
``RESOURCE_EXHAUSTED``/``UNAVAILABLE`` with ``RetryInfo``), and a ``google.rpc.Status`` body in
the request's encoding. ``Refusal`` carries all of that, so the HTTP and gRPC front ends refuse
the same way from the same cause.
"""

from dataclasses import dataclass

import grpc
from google.protobuf import duration_pb2
from google.protobuf.json_format import MessageToJson
from google.rpc import error_details_pb2, status_pb2

_GRPC_CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    404: grpc.StatusCode.UNIMPLEMENTED,
    408: grpc.StatusCode.DEADLINE_EXCEEDED,
    413: grpc.StatusCode.INVALID_ARGUMENT,
    415: grpc.StatusCode.INVALID_ARGUMENT,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
    500: grpc.StatusCode.INTERNAL,
    503: grpc.StatusCode.UNAVAILABLE,
}


@dataclass(eq=False)
class Refusal(Exception):
    """A request the receiver does not acknowledge: why, and when to retry (if ever).

    Not frozen: Python code sets an exception's ``__traceback__`` (``contextlib``, and
    ``concurrent.futures`` in a worker process, where a frozen refusal killed the worker).
    """

    http_status: int
    message: str
    retry_after_s: int | None = None

    def __reduce__(self) -> tuple[type["Refusal"], tuple[int, str, int | None]]:
        # Raised in a worker process, re-raised here: rebuilt from its fields, not ``args``.
        return (Refusal, (self.http_status, self.message, self.retry_after_s))

    def __str__(self) -> str:
        return f"{self.http_status}: {self.message}"

    @property
    def grpc_code(self) -> grpc.StatusCode:
        """The gRPC code the OTLP specification pairs with ``http_status``."""
        return _GRPC_CODES.get(self.http_status, grpc.StatusCode.INTERNAL)

    def status(self) -> status_pb2.Status:
        """The ``google.rpc.Status`` of this refusal, with ``RetryInfo`` when retryable."""
        code = self.grpc_code.value[0]
        status = status_pb2.Status(code=code, message=self.message)
        if self.retry_after_s is not None:
            info = error_details_pb2.RetryInfo(
                retry_delay=duration_pb2.Duration(seconds=self.retry_after_s)
            )
            status.details.add().Pack(info)
        return status

    def body(self, json: bool) -> bytes:
        """The status as a response body: JSON for JSON requests, else protobuf."""
        if json:
            return MessageToJson(self.status(), indent=None).encode()
        return self.status().SerializeToString()

    def headers(self) -> dict[str, str]:
        """``Retry-After`` for a retryable refusal, the challenge for a 401."""
        headers = {}
        if self.retry_after_s is not None:
            headers["Retry-After"] = str(self.retry_after_s)
        if self.http_status == 401:
            headers["WWW-Authenticate"] = 'Bearer realm="eval-pipeline"'
        return headers


def saturated(retry_after_s: int) -> Refusal:
    """The write path is full: retry later (429 / ``RESOURCE_EXHAUSTED`` with ``RetryInfo``)."""
    return Refusal(429, "the write path is saturated; retry later", retry_after_s)


def unavailable(reason: str, retry_after_s: int) -> Refusal:
    """The store or the stream cannot take the spans now (503 / ``UNAVAILABLE``)."""
    return Refusal(503, reason, retry_after_s)
