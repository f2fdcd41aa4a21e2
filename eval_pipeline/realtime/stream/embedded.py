"""The embedded span stream: an append-only log in the home's SQL state database.

No service is needed: the log is a table of the state database (SQLite by default,
PostgreSQL in production, through ``statedb``). Publishing inserts the messages under a unique
(stream, message id) key in one committed transaction, so a retry adds nothing. A durable
consumer is a cursor (the last sequence handed out) and a table of claimed, unacknowledged
deliveries with a deadline; ``fetch`` claims expired deliveries first (redelivery, at least
once) and then new messages, in one transaction that first writes the consumer's cursor row,
which serialises the workers of one plane (SQLite's write lock, a row lock on PostgreSQL).

Sequence numbers must commit in order or a cursor could pass a sequence that commits later:
PostgreSQL publishers take the log's table lock (SQLite writers are serial anyway). The log is
bounded by age and count (``retention``): publishers trim it every few seconds.
"""

import time
from collections.abc import Sequence

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Float,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    UniqueConstraint,
    delete,
    func,
    select,
    text,
    update,
)

from eval_pipeline.realtime.stream.decoding import decode
from eval_pipeline.realtime.stream.encoding import encode_rows
from eval_pipeline.realtime.stream.events import DEFAULT_PREFIX, OutgoingMessage
from eval_pipeline.realtime.stream.protocol import Delivery
from eval_pipeline.realtime.stream.retention import Retention
from eval_pipeline.statedb import METADATA, engine_for, insert_new, insert_tuples
from eval_pipeline.traces.store.span_table import Row

LOG = Table(
    "stream_log",
    METADATA,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("stream", String(100), nullable=False),
    Column("msg_id", String(700), nullable=False),
    Column("subject", String(500), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("build", String(200), nullable=False),
    Column("day", String(64), nullable=False),
    Column("trace_id", String(128), nullable=False),
    Column("payload", LargeBinary, nullable=False),
    Column("published_at", Float, nullable=False),
    UniqueConstraint("stream", "msg_id", name="stream_log_once"),
)
READ_INDEX = Index("stream_log_by_seq", LOG.c.stream, LOG.c.seq)
"""Consumers read a stream's messages after a sequence: without this index SQLite reads
them through the (stream, msg_id) key and sorts them, a cost that grows with the log."""
AGE_INDEX = Index("stream_log_by_age", LOG.c.stream, LOG.c.published_at)
"""Retention finds the messages past their age without reading the log."""

CURSORS = Table(
    "stream_cursors",
    METADATA,
    Column("stream", String(100), primary_key=True),
    Column("consumer", String(200), primary_key=True),
    Column("last_seq", Integer, nullable=False),
)

PENDING = Table(
    "stream_pending",
    METADATA,
    Column("stream", String(100), primary_key=True),
    Column("consumer", String(200), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("deadline", Float, nullable=False),
    Column("deliveries", Integer, nullable=False),
)

_POLL_S = 0.02
_LOG_COLUMNS = (
    "stream",
    "msg_id",
    "subject",
    "kind",
    "build",
    "day",
    "trace_id",
    "payload",
    "published_at",
)


class EmbeddedStream:
    """``SpanStream`` over the state database at ``state_url``; ``prefix`` names the stream."""

    def __init__(
        self, state_url: str, prefix: str = DEFAULT_PREFIX, retention: Retention | None = None
    ) -> None:
        self.engine: Engine = engine_for(state_url)
        self.prefix = prefix
        self.retention = retention or Retention()
        self._trimmed_at = 0.0
        # A state database made before the indexes existed: ``create_all`` adds no index to a
        # table that is there already.
        READ_INDEX.create(self.engine, checkfirst=True)
        AGE_INDEX.create(self.engine, checkfirst=True)

    def publish_rows(self, rows: Sequence[Row], *, builds: Sequence[str], day: str) -> None:
        """Append the rows' messages in one transaction (see ``SpanStream.publish_rows``)."""
        self.publish(encode_rows(self.prefix, rows, builds, day))

    def publish(self, messages: Sequence[OutgoingMessage]) -> None:
        """Append encoded messages, skipping ids already in the log."""
        if not messages:
            return
        now = time.time()
        prefix = self.prefix
        values = [
            (prefix, m.msg_id, m.subject, m.kind, m.build, m.day, m.trace_id, m.payload, now)
            for m in messages
        ]
        with self.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(text(f"LOCK TABLE {LOG.name} IN EXCLUSIVE MODE"))
            insert_tuples(connection, LOG, _LOG_COLUMNS, values, skip_existing=True)
        if now - self._trimmed_at >= self.retention.trim_interval_s:
            self.trim(now)

    def trim(self, now: float | None = None) -> int:
        """Delete what ``retention`` no longer keeps (and its claims); how many messages went.

        Sequences grow with publication time, so both limits come down to one cut: every
        message up to a sequence goes (one indexed range delete).
        """
        now = time.time() if now is None else now
        self._trimmed_at = now
        prefix = self.prefix
        mine = LOG.c.stream == prefix
        with self.engine.begin() as connection:
            newest = connection.execute(select(func.max(LOG.c.seq)).where(mine)).scalar()
            if newest is None:
                return 0
            aged = connection.execute(
                select(func.max(LOG.c.seq)).where(
                    mine, LOG.c.published_at < now - self.retention.max_age_s
                )
            ).scalar()
            cut = max(newest - self.retention.max_messages, aged or 0)
            if cut <= 0:
                return 0
            deleted = connection.execute(delete(LOG).where(mine, LOG.c.seq <= cut)).rowcount
            connection.execute(
                delete(PENDING).where(PENDING.c.stream == prefix, PENDING.c.seq <= cut)
            )
        return int(deleted or 0)

    def consumer(self, plane: str, *, ack_wait_s: float = 30.0) -> "EmbeddedConsumer":
        """A handle on the durable consumer ``plane`` (its cursor starts at the log's start)."""
        return EmbeddedConsumer(self, plane, ack_wait_s)

    def message_count(self) -> int:
        """Messages in the log of this stream (tests and ``bench``)."""
        with self.engine.connect() as connection:
            query = select(func.count()).select_from(LOG).where(LOG.c.stream == self.prefix)
            return int(connection.execute(query).scalar_one())

    def close(self) -> None:
        """Nothing to release: engines are shared per URL (``statedb``)."""


class EmbeddedConsumer:
    """One worker's handle on a durable consumer of the log."""

    def __init__(self, stream: EmbeddedStream, plane: str, ack_wait_s: float) -> None:
        self.stream = stream
        self.plane = plane
        self.ack_wait_s = ack_wait_s
        self._acked: list[int] = []
        key = {"stream": stream.prefix, "consumer": plane}
        with stream.engine.begin() as connection:
            exists = connection.execute(
                select(CURSORS.c.last_seq).where(
                    CURSORS.c.stream == stream.prefix, CURSORS.c.consumer == plane
                )
            ).first()
            if exists is None:
                connection.execute(insert_new(connection, CURSORS), [{**key, "last_seq": 0}])

    def fetch(self, max_messages: int = 256, timeout_s: float = 1.0) -> list[Delivery]:
        """Claimed deliveries (expired ones first); polls the log until ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            deliveries = self._claim(max_messages)
            if deliveries or time.monotonic() >= deadline:
                return deliveries
            time.sleep(_POLL_S)

    def _idle(self, now: float) -> bool:
        """Nothing to claim and nothing to write: checked without taking the write lock."""
        if self._acked:
            return False
        prefix, plane = self.stream.prefix, self.plane
        with self.stream.engine.connect() as connection:
            last_seq = connection.execute(
                select(CURSORS.c.last_seq).where(
                    CURSORS.c.stream == prefix, CURSORS.c.consumer == plane
                )
            ).scalar_one()
            newer = connection.execute(
                select(LOG.c.seq).where(LOG.c.stream == prefix, LOG.c.seq > last_seq).limit(1)
            ).first()
            if newer is not None:
                return False
            expired = connection.execute(
                select(PENDING.c.seq)
                .where(
                    PENDING.c.stream == prefix,
                    PENDING.c.consumer == plane,
                    PENDING.c.deadline < now,
                )
                .limit(1)
            ).first()
        return expired is None

    def _claim(self, limit: int) -> list[Delivery]:
        if self._idle(time.time()):
            return []
        prefix, plane = self.stream.prefix, self.plane
        mine = (PENDING.c.stream == prefix) & (PENDING.c.consumer == plane)
        cursor_row = (CURSORS.c.stream == prefix) & (CURSORS.c.consumer == plane)
        now = time.time()
        with self.stream.engine.begin() as connection:
            # Writing the cursor row first takes the lock that serialises this plane's workers.
            self._delete_acked(connection)
            connection.execute(
                update(CURSORS).where(cursor_row).values(last_seq=CURSORS.c.last_seq)
            )
            last_seq = connection.execute(select(CURSORS.c.last_seq).where(cursor_row)).scalar_one()
            expired = connection.execute(
                select(LOG.c.seq, LOG.c.payload, LOG.c.published_at, PENDING.c.deliveries)
                .join(LOG, (LOG.c.stream == PENDING.c.stream) & (LOG.c.seq == PENDING.c.seq))
                .where(mine, PENDING.c.deadline < now)
                .order_by(PENDING.c.seq)
                .limit(limit)
            ).all()
            fresh = (
                connection.execute(
                    select(LOG.c.seq, LOG.c.payload, LOG.c.published_at)
                    .where(LOG.c.stream == prefix, LOG.c.seq > last_seq)
                    .order_by(LOG.c.seq)
                    .limit(limit - len(expired) + 1)  # one more tells whether more wait
                ).all()
                if limit > len(expired)
                else []
            )
            waiting = len(expired) + len(fresh) > limit
            fresh = fresh[: limit - len(expired)]
            if not expired and not fresh:
                return []  # leaving the block commits the deferred acknowledgements
            until = now + self.ack_wait_s
            if expired:
                connection.execute(
                    update(PENDING)
                    .where(mine, PENDING.c.seq.in_([row.seq for row in expired]))
                    .values(deadline=until, deliveries=PENDING.c.deliveries + 1)
                )
            if fresh:
                insert_tuples(
                    connection,
                    PENDING,
                    ("stream", "consumer", "seq", "deadline", "deliveries"),
                    [(prefix, plane, row.seq, until, 1) for row in fresh],
                )
                connection.execute(update(CURSORS).where(cursor_row).values(last_seq=fresh[-1].seq))
        # (seq, payload, published_at, deliveries), oldest first.
        claimed = sorted(
            [(seq, payload, at, count + 1) for seq, payload, at, count in expired]
            + [(seq, payload, at, 1) for seq, payload, at in fresh]
        )
        events = decode([payload for _, payload, _, _ in claimed])
        return [
            Delivery(event, seq, count, published_at, payload, waiting)
            for (seq, payload, published_at, count), event in zip(claimed, events, strict=True)
        ]

    def ack(self, deliveries: Sequence[Delivery]) -> None:
        """Mark the deliveries done: their claims are deleted with the next claim or ``close``.

        Deferring the delete into the next ``fetch``'s transaction saves a commit per batch;
        an acknowledgement lost with the process only means a redelivery (at least once).
        """
        self._acked.extend(d.token for d in deliveries)

    def _delete_acked(self, connection: Connection) -> None:
        seqs, self._acked = self._acked, []
        for start in range(0, len(seqs), 500):
            connection.execute(
                delete(PENDING).where(
                    PENDING.c.stream == self.stream.prefix,
                    PENDING.c.consumer == self.plane,
                    PENDING.c.seq.in_(seqs[start : start + 500]),
                )
            )

    def close(self) -> None:
        """Write the acknowledgements still deferred (unacknowledged claims expire)."""
        if self._acked:
            with self.stream.engine.begin() as connection:
                self._delete_acked(connection)
