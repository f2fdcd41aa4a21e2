"""The span stream's two sides: a publisher the receiver calls, consumers the planes run.

``SpanStream`` is implemented twice with the same behaviour (``open_stream`` picks one): an
append-only log in the home's SQL state database (``embedded``, the default: no service) and
NATS JetStream (``jetstream``, production). A consumer is durable and named for its plane
(``realtime-detectors``, ``batch-sampler``); every worker opening the same plane shares it, so
N workers split the load (a JetStream pull consumer; claimed rows in the log). Delivery is at
least once: a delivery not acknowledged within ``ack_wait_s`` is delivered again, to any worker.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from eval_pipeline.realtime.stream.events import StreamEvent
from eval_pipeline.traces.store.span_table import Row

REALTIME_PLANE = "realtime-detectors"
BATCH_PLANE = "batch-sampler"


@dataclass(frozen=True)
class Delivery:
    """One delivered event; acknowledge it (``StreamConsumer.ack``) once it is processed.

    ``deliveries`` counts the times it was handed out (1 the first time); ``published_at`` is
    the publish time (UTC epoch seconds) when the back end records it; ``payload`` the
    message as published (``events.decode`` reads it), for consumers that keep it;
    ``waiting`` whether more messages were waiting for the consumer when it was fetched (so
    the consumer is behind), when the back end tells.
    """

    event: StreamEvent
    token: Any
    deliveries: int = 1
    published_at: float | None = None
    payload: bytes = b""
    waiting: bool = False


class StreamConsumer(Protocol):
    """One worker's handle on a plane's durable consumer."""

    def fetch(self, max_messages: int = 256, timeout_s: float = 1.0) -> list[Delivery]:
        """Up to ``max_messages`` deliveries; waits up to ``timeout_s`` for the first one."""
        ...

    def ack(self, deliveries: Sequence[Delivery]) -> None:
        """Mark deliveries processed: they are not delivered again."""
        ...

    def close(self) -> None:
        """Release the handle (unacknowledged deliveries are delivered again later)."""
        ...


class SpanStream(Protocol):
    """The stream of stored spans and completed traces."""

    def publish_rows(self, rows: Sequence[Row], *, builds: Sequence[str], day: str) -> None:
        """Publish stored rows; return only when the stream durably accepted every message.

        ``rows`` are the stored (redacted) span rows (``span_table.Row``), ``builds[i]`` is
        row i's build. One span event per row and one trace-completed event per root span
        that ended. Idempotent on retry: message ids are build/trace/span.

        Raises:
            StreamUnavailable: the stream did not accept every message (nothing is
                acknowledged to the sender; a retry publishes again, deduplicated).
        """
        ...

    def consumer(self, plane: str, *, ack_wait_s: float = 30.0) -> StreamConsumer:
        """A worker's handle on the durable consumer of ``plane`` (created if new)."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...
