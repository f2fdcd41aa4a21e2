"""The span ledger: which spans and parts a trace store holds, in the SQL state database.

The ledger, not the folder of parts, is the authority on what is stored. A part becomes part
of the store in the same transaction that records its spans' keys, under a unique constraint
on (store, build, trace id, span id), so:

- a failure anywhere between writing a part and committing its keys leaves a part no reader
  sees (an orphan, removed by ``TraceStore.clean``); the retried request stores the spans
  once;
- two writers (processes or hosts sharing the store and the database) racing to store one span
  cannot both commit it: the second one's insert fails on the constraint, and it retries with
  the span filtered out;
- a writer keeps no set of keys in memory: it asks the ledger about the traces in its batch.

Which trace has its root where (``roots``) and which builds hold a trace (``builds_of``) are
ledger queries too, so the first request after a restart reads no part.

The tables and their engine are in ``ledger_tables``, the batched queries in
``ledger_queries``.
"""

from collections.abc import Iterable, Sequence

import orjson
from sqlalchemy import Connection, Engine, delete, insert, or_, select

from eval_pipeline.traces.store.ledger_queries import (
    INSERT_KEYS,
    KEYS_ANYWHERE,
    ROOTS,
    STORED_KEYS,
    by_trace,
    chunks,
    keys_document,
    trace_filters,
)
from eval_pipeline.traces.store.ledger_tables import (
    PARTS,
    SPAN_KEYS,
    dispose_ledgers,
    ledger_engine,
)

Key = tuple[str, str]
"""(trace id, span id)."""


class Ledger:
    """The ledger rows of one store (``store``: the id in the store's ``.store-id`` file)."""

    def __init__(self, engine: Engine, store: str) -> None:
        self.engine = engine
        self.store = store

    def stored_keys(self, build: str, trace_ids: Iterable[str]) -> set[Key]:
        """The keys already stored in ``build`` for these traces."""
        keys: set[Key] = set()
        with self.engine.connect() as connection:
            if connection.dialect.name == "sqlite":
                found = by_trace(connection, STORED_KEYS, trace_ids, (self.store, build))
                return set(found)
            for among in trace_filters(connection, trace_ids):
                query = select(SPAN_KEYS.c.trace_id, SPAN_KEYS.c.span_id).where(
                    SPAN_KEYS.c.store == self.store, SPAN_KEYS.c.build == build, among
                )
                keys.update((t, s) for t, s in connection.execute(query))
        return keys

    def record(
        self,
        connection: Connection,
        *,
        build: str,
        day: str,
        path: str,
        keys: Sequence[tuple[str, str, bool]],
        trusted: bool = True,
    ) -> None:
        """Record a part and its (trace id, span id, is root) keys, in the caller's transaction.

        ``trusted``: whether the part's writer could write any build (``PARTS.trusted``).
        Raises ``sqlalchemy.exc.IntegrityError`` when another writer stored one of the keys
        first; the caller rolls back.
        """
        part = {"store": self.store, "path": path, "build": build, "day": day, "rows": len(keys)}
        connection.execute(insert(PARTS), [{**part, "trusted": trusted}])
        if connection.dialect.name == "sqlite":
            # One statement over the keys as one JSON document: SQLite unpacks it itself, which
            # costs about half of the driver's executemany binding five values per row (and a
            # tenth of Core's dict rows), on the hot path. PostgreSQL keeps Core, which
            # batches rows into multi-row VALUES.
            connection.exec_driver_sql(INSERT_KEYS, (self.store, build, keys_document(keys)))
            return
        for chunk in chunks(keys, 5000):
            connection.execute(
                insert(SPAN_KEYS),
                [
                    {
                        "store": self.store,
                        "build": build,
                        "trace_id": trace_id,
                        "span_id": span_id,
                        "is_root": is_root,
                    }
                    for trace_id, span_id, is_root in chunk
                ],
            )

    def replace_parts(
        self,
        connection: Connection,
        old: Sequence[str],
        new: str,
        *,
        build: str,
        day: str,
        rows: int,
        trusted: bool = True,
    ) -> bool:
        """Swap parts for their compacted union, in the caller's transaction.

        The keys stay (they name spans, not parts). False when another compaction removed one
        of ``old`` first: the caller rolls back, or the spans would be read twice.
        """
        removed = 0
        for chunk in chunks(old):
            removed += connection.execute(
                delete(PARTS).where(PARTS.c.store == self.store, PARTS.c.path.in_(chunk))
            ).rowcount
        if removed != len(old):
            return False
        connection.execute(
            insert(PARTS),
            [
                {
                    "store": self.store,
                    "path": new,
                    "build": build,
                    "day": day,
                    "rows": rows,
                    "trusted": trusted,
                }
            ],
        )
        return True

    def parts(
        self, build: str | None = None, day: str | None = None, trusted: bool | None = None
    ) -> list[tuple[str, str, int]]:
        """(path, day, rows) of the recorded parts, sorted by path.

        Optionally one build, one day, and only the parts of trusted (or untrusted) writers
        (``PARTS.trusted``; a part recorded before that column is trusted).
        """
        query = select(PARTS.c.path, PARTS.c.day, PARTS.c.rows).where(PARTS.c.store == self.store)
        if build is not None:
            query = query.where(PARTS.c.build == build)
        if day is not None:
            query = query.where(PARTS.c.day == day)
        if trusted is not None:
            vouched = or_(PARTS.c.trusted.is_(None), PARTS.c.trusted.is_(True))
            query = query.where(vouched if trusted else PARTS.c.trusted.is_(False))
        with self.engine.connect() as connection:
            return sorted((p, d, r) for p, d, r in connection.execute(query))

    def builds(self) -> list[str]:
        """The builds with recorded parts, sorted."""
        query = select(PARTS.c.build).where(PARTS.c.store == self.store).distinct()
        with self.engine.connect() as connection:
            return sorted(b for (b,) in connection.execute(query))

    def roots(self, trace_ids: Iterable[str]) -> dict[str, str]:
        """The build holding each trace's root, for the traces that have one stored.

        A trace whose root is stored under several builds maps to the first by name.
        """
        found: dict[str, str] = {}
        with self.engine.connect() as connection:
            if connection.dialect.name == "sqlite":
                for trace_id, build in sorted(
                    by_trace(connection, ROOTS, trace_ids, (self.store,))
                ):
                    found.setdefault(trace_id, build)
                return found
            for among in trace_filters(connection, trace_ids):
                query = select(SPAN_KEYS.c.trace_id, SPAN_KEYS.c.build).where(
                    SPAN_KEYS.c.store == self.store, SPAN_KEYS.c.is_root.is_(True), among
                )
                for trace_id, build in sorted(connection.execute(query)):
                    found.setdefault(trace_id, build)
        return found

    def homes(self, trace_ids: Iterable[str]) -> tuple[dict[str, str], dict[Key, set[str]]]:
        """Where these traces are stored: root builds (as ``roots``) and each span's builds.

        One query; nothing for traces not stored yet (the usual batch).
        """
        rows: list[tuple[str, str, str, bool]] = []
        with self.engine.connect() as connection:
            if connection.dialect.name == "sqlite":
                wanted = set(trace_ids)
                if wanted:
                    ids = orjson.dumps(list(wanted)).decode()
                    result = connection.exec_driver_sql(KEYS_ANYWHERE, (ids, self.store))
                    rows = [(t, s, b, bool(r)) for t, s, b, r in result]
            else:
                for among in trace_filters(connection, trace_ids):
                    query = select(
                        SPAN_KEYS.c.trace_id,
                        SPAN_KEYS.c.span_id,
                        SPAN_KEYS.c.build,
                        SPAN_KEYS.c.is_root,
                    ).where(SPAN_KEYS.c.store == self.store, among)
                    rows.extend((t, s, b, bool(r)) for t, s, b, r in connection.execute(query))
        roots: dict[str, str] = {}
        keys: dict[Key, set[str]] = {}
        for trace_id, span_id, build, is_root in sorted(rows):
            if is_root:
                roots.setdefault(trace_id, build)
            keys.setdefault((trace_id, span_id), set()).add(build)
        return roots, keys

    def builds_of(self, trace_ids: Iterable[str]) -> dict[str, dict[str, bool]]:
        """For each trace: the builds holding its spans, each with whether it holds a root."""
        found: dict[str, dict[str, bool]] = {}
        with self.engine.connect() as connection:
            for among in trace_filters(connection, trace_ids):
                query = (
                    select(SPAN_KEYS.c.trace_id, SPAN_KEYS.c.build, SPAN_KEYS.c.is_root)
                    .where(SPAN_KEYS.c.store == self.store, among)
                    .distinct()
                )
                for trace_id, build, is_root in connection.execute(query):
                    builds = found.setdefault(trace_id, {})
                    builds[build] = builds.get(build, False) or bool(is_root)
        return found

    def traces_in(self, build: str) -> set[str]:
        """The trace ids with spans stored in ``build``."""
        query = (
            select(SPAN_KEYS.c.trace_id)
            .where(SPAN_KEYS.c.store == self.store, SPAN_KEYS.c.build == build)
            .distinct()
        )
        with self.engine.connect() as connection:
            return {t for (t,) in connection.execute(query)}


__all__ = ["PARTS", "SPAN_KEYS", "Key", "Ledger", "dispose_ledgers", "ledger_engine"]
