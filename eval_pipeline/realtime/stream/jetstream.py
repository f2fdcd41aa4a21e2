"""The production span stream: NATS JetStream through nats-py.

One JetStream stream per prefix (``EVALPIPE`` for ``evalpipe``) holds the subjects
``<prefix>.>``; a publish sends every message with its ``Nats-Msg-Id`` and waits for every
PubAck, so ``publish_rows`` returns only once JetStream stored (or deduplicated, within the
stream's duplicate window) each message. No acknowledgement in time, or no connection, is
``StreamUnavailable``. A plane is a durable pull consumer: the workers binding to the same
durable share its messages, each acknowledged after processing (explicit acks, redelivery
after ``ack_wait``).

nats-py is asyncio-only; one background loop thread (``LoopThread``) owns the connection and
the synchronous methods block on it with timeouts.
"""

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

import nats
from nats.errors import Error as NatsError
from nats.js.api import AckPolicy, ConsumerConfig, StorageType, StreamConfig
from nats.js.errors import NotFoundError

from eval_pipeline.realtime.stream.decoding import decode
from eval_pipeline.realtime.stream.encoding import encode_rows
from eval_pipeline.realtime.stream.events import DEFAULT_PREFIX, OutgoingMessage, StreamUnavailable
from eval_pipeline.realtime.stream.loop_thread import LoopThread
from eval_pipeline.realtime.stream.protocol import Delivery
from eval_pipeline.realtime.stream.retention import Retention
from eval_pipeline.traces.store.span_table import Row

DUPLICATE_WINDOW_S = 600.0
"""How long JetStream remembers a message id (a receiver retry falls well inside)."""


def stream_name(prefix: str) -> str:
    """The JetStream stream name for a subject prefix."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in prefix).upper()


class JetStreamStream:
    """``SpanStream`` on the NATS server at ``url`` (``nats://host:port``)."""

    def __init__(
        self,
        url: str,
        prefix: str = DEFAULT_PREFIX,
        *,
        connect_timeout_s: float = 2.0,
        publish_timeout_s: float = 5.0,
        retention: Retention | None = None,
    ) -> None:
        self.url = url
        self.retention = retention or Retention()
        self.prefix = prefix
        self.name = stream_name(prefix)
        self.publish_timeout_s = publish_timeout_s
        self._loop = LoopThread(f"nats-{self.name}")
        try:
            self._nc = self._loop.run(self._connect(connect_timeout_s), connect_timeout_s + 5)
            self._js = self._nc.jetstream(timeout=publish_timeout_s)
            self._loop.run(self._ensure_stream(), publish_timeout_s + 5)
        except (OSError, NatsError, TimeoutError) as exc:
            self._loop.stop()
            raise StreamUnavailable(f"NATS JetStream at {url}: {exc!r}") from exc

    async def _connect(self, timeout_s: float) -> Any:
        # Reconnecting forever keeps a worker alive across a NATS restart; the first connect
        # is bounded here instead (nats-py would retry it forever too).
        connecting = nats.connect(
            self.url,
            connect_timeout=timeout_s,
            allow_reconnect=True,
            max_reconnect_attempts=-1,
            reconnect_time_wait=0.5,
            error_cb=_ignore,
            disconnected_cb=_ignore_event,
            reconnected_cb=_ignore_event,
            closed_cb=_ignore_event,
        )
        return await asyncio.wait_for(connecting, timeout_s)

    async def _ensure_stream(self) -> None:
        config = StreamConfig(
            name=self.name,
            subjects=[f"{self.prefix}.>"],
            storage=StorageType.FILE,
            duplicate_window=DUPLICATE_WINDOW_S,
            max_age=self.retention.max_age_s,
            max_msgs=self.retention.max_messages,
        )
        try:
            info = await self._js.stream_info(self.name)
        except NotFoundError:
            await self._js.add_stream(config)
            return
        if (info.config.max_age, info.config.max_msgs) != (config.max_age, config.max_msgs):
            await self._js.update_stream(config)  # a stream made before retention, or other limits

    def publish_rows(self, rows: Sequence[Row], *, builds: Sequence[str], day: str) -> None:
        """Publish and wait for every PubAck (see ``SpanStream.publish_rows``)."""
        self.publish(encode_rows(self.prefix, rows, builds, day))

    def publish(self, messages: Sequence[OutgoingMessage]) -> None:
        """Publish encoded messages; ``StreamUnavailable`` unless JetStream acked them all."""
        if not messages:
            return
        try:
            self._loop.run(self._publish(messages), self.publish_timeout_s + 1)
        except (OSError, NatsError, TimeoutError) as exc:
            raise StreamUnavailable(f"NATS JetStream at {self.url}: {exc!r}") from exc

    async def _publish(self, messages: Sequence[OutgoingMessage]) -> None:
        # Pipelined: every message goes out before the first PubAck is awaited. No
        # ``wait_stall``: its ``wait_for`` yields to the loop per message, so the flusher
        # would write each message with its own syscall; ``run``'s timeout bounds a stall.
        pending = [
            await self._js.publish_async(
                m.subject,
                m.payload,
                stream=self.name,
                headers={"Nats-Msg-Id": m.msg_id},
            )
            for m in messages
        ]
        try:
            await asyncio.wait_for(asyncio.gather(*pending), self.publish_timeout_s)
        finally:
            for future in pending:
                future.cancel()  # no-op for the acknowledged; frees the semaphore of the rest

    def consumer(self, plane: str, *, ack_wait_s: float = 30.0) -> "JetStreamConsumer":
        """Bind to the durable pull consumer ``plane`` (created on first use)."""
        return JetStreamConsumer(self, plane, ack_wait_s)

    def delete_stream(self) -> None:
        """Delete the JetStream stream and its consumers (tests clean up with this)."""
        self._loop.run(self._js.delete_stream(self.name), self.publish_timeout_s + 5)

    def run(self, coroutine: Any, timeout_s: float) -> Any:
        """Run a coroutine on the connection's loop (the consumers' way in)."""
        return self._loop.run(coroutine, timeout_s)

    @property
    def jetstream(self) -> Any:
        """The nats-py JetStream context (on the loop thread only)."""
        return self._js

    def close(self) -> None:
        """Drain the connection and stop the loop thread."""
        # Closing a connection to a server that is gone: nothing is left to flush.
        with contextlib.suppress(OSError, NatsError, TimeoutError):
            self._loop.run(self._nc.close(), 5)
        self._loop.stop()


async def _ignore(_: Exception) -> None:
    """Connection errors surface as failed calls; the callback only keeps nats-py quiet."""


async def _ignore_event() -> None:
    """As ``_ignore``, for the connection state callbacks."""


_V1_ACK_TOKENS = 9
"""``$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<ns>.<pending>``"""


def _ack_metadata(message: Any) -> tuple[int, float | None, int]:
    """(times delivered, publish time in epoch seconds, messages pending) of a JetStream message.

    Read from its reply subject; nats-py's ``metadata`` builds a datetime and two objects per
    message for the same three numbers, a tenth of a fetch's cost. Other reply layouts
    (a domain, an account hash) are left to nats-py.
    """
    tokens: list[str] = message.reply.split(".") if message.reply else []
    if len(tokens) == _V1_ACK_TOKENS and tokens[0] == "$JS" and tokens[1] == "ACK":
        return int(tokens[4]) or 1, int(tokens[7]) / 1e9, int(tokens[8])
    metadata = message.metadata
    published = metadata.timestamp.timestamp() if metadata.timestamp else None
    return metadata.num_delivered or 1, published, metadata.num_pending or 0


class JetStreamConsumer:
    """One worker's binding to a plane's durable pull consumer."""

    def __init__(self, stream: JetStreamStream, plane: str, ack_wait_s: float) -> None:
        self.stream = stream
        self.plane = plane
        config = ConsumerConfig(
            durable_name=plane,
            ack_policy=AckPolicy.EXPLICIT,
            ack_wait=ack_wait_s,
            max_ack_pending=-1,
        )
        try:
            self._subscription = stream.run(
                stream.jetstream.pull_subscribe(
                    f"{stream.prefix}.>", durable=plane, stream=stream.name, config=config
                ),
                stream.publish_timeout_s + 5,
            )
        except (OSError, NatsError, TimeoutError) as exc:
            raise StreamUnavailable(f"consumer {plane!r} on {stream.url}: {exc!r}") from exc

    def fetch(self, max_messages: int = 256, timeout_s: float = 1.0) -> list[Delivery]:
        """Up to ``max_messages`` deliveries, waiting up to ``timeout_s`` for the first."""
        try:
            # Generous slack: on a loaded host the loop can lag well behind the pull's expiry.
            messages, buffered = self.stream.run(
                self._fetch(max_messages, timeout_s), timeout_s + 15
            )
        except (OSError, NatsError, TimeoutError) as exc:
            raise StreamUnavailable(f"fetch for {self.plane!r}: {exc!r}") from exc
        if not messages:
            return []
        events = decode([m.data for m in messages])
        deliveries = []
        for message, event in zip(messages, events, strict=True):
            delivered, published, pending = _ack_metadata(message)
            deliveries.append(
                Delivery(
                    event,
                    message,
                    delivered,
                    published,
                    message.data,
                    bool(pending or buffered),
                )
            )
        return deliveries

    async def _fetch(self, max_messages: int, timeout_s: float) -> tuple[list[Any], int]:
        """The messages fetched, and how many more nats-py holds already delivered.

        The server no longer counts those in ``num_pending``: the consumer is behind all the same.
        """
        try:
            fetched = list(await self._subscription.fetch(max_messages, timeout=timeout_s))
            return fetched, self._subscription.pending_msgs
        except TimeoutError:
            # nats-py's own TimeoutError, and on some of its paths a bare asyncio.TimeoutError
            # (the server's 408 arriving as the timer fires): nothing arrived in time.
            return [], 0

    def ack(self, deliveries: Sequence[Delivery]) -> None:
        """Acknowledge and flush, so the server has every ack when this returns."""
        if deliveries:
            self.stream.run(self._ack(deliveries), self.stream.publish_timeout_s + 5)

    async def _ack(self, deliveries: Sequence[Delivery]) -> None:
        for delivery in deliveries:
            await delivery.token.ack()
        await self.stream._nc.flush(timeout=self.stream.publish_timeout_s)

    def close(self) -> None:
        """Unsubscribe this worker (the durable consumer and its unacked messages remain)."""
        # When the connection is gone, the server drops the subscription itself.
        with contextlib.suppress(OSError, NatsError, TimeoutError):
            self.stream.run(self._subscription.unsubscribe(), 5)
