"""What travels on the span stream: span events and trace-completed events, and their subjects.

One message per stored span (``SpanEvent``) and one per root span that ended
(``TraceCompleted``). Both back ends (the embedded SQL log and NATS JetStream) carry the same
payloads under the same subjects and message ids, so a consumer cannot tell them apart:

- subjects ``<prefix>.spans.<build>.<day>`` and ``<prefix>.traces.<build>.<day>``, the build
  escaped to one subject token (``subject_token``);
- message ids ``<build>/<trace id>/<span id>`` and ``<build>/<trace id>/<root span id>/completed``:
  publishing the same rows again is deduplicated by id (JetStream's ``Nats-Msg-Id``, the log's
  unique key).

The payloads are written by ``encoding.encode_rows`` and read back by ``decoding.decode``.
"""

import re
from dataclasses import dataclass

from eval_pipeline.traces.model import Span

SPAN_KIND = "span"
TRACE_KIND = "trace_completed"
DEFAULT_PREFIX = "evalpipe"
MAX_NAMED_SPANS = 10_000
"""A completion names at most this many spans (about 200 KB, well inside NATS's 1 MB)."""


class StreamUnavailable(RuntimeError):
    """The stream did not durably accept a publish (the receiver answers 503, never 200)."""


@dataclass(frozen=True)
class SpanEvent:
    """One stored (redacted) span of ``build``, stored on UTC ``day``."""

    build: str
    day: str
    span: Span


@dataclass(frozen=True)
class TraceCompleted:
    """The root span of ``trace_id`` ended: the trace may be judged after a quiet period."""

    build: str
    day: str
    trace_id: str
    root_span_id: str
    root_end_unix_nano: int
    span_ids: tuple[str, ...] = ()
    """The spans published with the root (at most ``MAX_NAMED_SPANS``); spans published
    earlier are not named."""


StreamEvent = SpanEvent | TraceCompleted


@dataclass(frozen=True)
class OutgoingMessage:
    """A message ready to publish: subject, deduplication id and payload."""

    subject: str
    msg_id: str
    payload: bytes
    kind: str
    build: str
    day: str
    trace_id: str


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def subject_token(value: str) -> str:
    """``value`` as one NATS subject token (``.``, ``*``, ``>``, spaces escaped as ``~XX``)."""
    return _UNSAFE.sub(lambda m: "".join(f"~{b:02X}" for b in m.group(0).encode()), value) or "~"


def span_subject(prefix: str, build: str, day: str) -> str:
    """The subject of the span events of ``build`` on ``day``."""
    return f"{prefix}.spans.{subject_token(build)}.{subject_token(day)}"


def trace_subject(prefix: str, build: str, day: str) -> str:
    """The subject of the trace-completed events of ``build`` on ``day``."""
    return f"{prefix}.traces.{subject_token(build)}.{subject_token(day)}"
