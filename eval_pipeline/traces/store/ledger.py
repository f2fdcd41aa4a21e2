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

The tables live in the state database but are declared on their own ``MetaData`` and created
here (``ledger_engine``): ``traces`` imports nothing else of the project, ``statedb`` included.
Creation is race-free the same way ``statedb.engine_for`` is.
"""

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TypeVar

import orjson
from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    bindparam,
    column,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.elements import ColumnElement

METADATA = MetaData()
_ENGINES: dict[str, Engine] = {}
_LOCK = threading.Lock()

SPAN_KEYS = Table(
    "trace_span_keys",
    METADATA,
    Column("store", String(64), nullable=False),
    Column("build", String(200), nullable=False),
    Column("trace_id", String(128), nullable=False),
    Column("span_id", String(128), nullable=False),
    Column("is_root", Boolean, nullable=False),
    # The key is the table's one index (its (store, trace id) prefix also serves every lookup
    # by trace). On SQLite the rows live in that index itself (``WITHOUT ROWID``): an insert
    # updates one b-tree, not a table and an index, about 40% less work on the hot path. A
    # ledger created before keeps its unique constraint beside a rowid table: the same
    # uniqueness, the same queries.
    PrimaryKeyConstraint("store", "trace_id", "build", "span_id", name="trace_span_keys_once"),
    sqlite_with_rowid=False,
)

PARTS = Table(
    "trace_parts",
    METADATA,
    Column("store", String(64), primary_key=True),
    Column("path", String(500), primary_key=True),
    Column("build", String(200), nullable=False),
    Column("day", String(64), nullable=False),
    Column("rows", Integer, nullable=False),
)

_CHUNK = 500
"""Ids per ``IN`` list (well under SQLite's and PostgreSQL's parameter limits)."""

T = TypeVar("T")


def _chunks(items: Iterable[T], size: int = _CHUNK) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


Key = tuple[str, str]
"""(trace id, span id)."""


def _trace_filters(
    connection: Connection, trace_ids: Iterable[str]
) -> Iterator[ColumnElement[bool]]:
    """``trace_id IN (...)`` conditions covering ``trace_ids``, one query each.

    SQLite takes the ids as one JSON array unpacked in C (``json_each``), a fifth of the cost
    of binding and planning chunks of parameters; other databases get chunked ``IN`` lists.
    """
    wanted = set(trace_ids)
    if not wanted:
        return
    if connection.dialect.name == "sqlite":
        ids = select(column("value", String)).select_from(
            func.json_each(bindparam("trace_ids", orjson.dumps(list(wanted)).decode()))
        )
        yield SPAN_KEYS.c.trace_id.in_(ids.scalar_subquery())
        return
    for chunk in _chunks(wanted):
        yield SPAN_KEYS.c.trace_id.in_(chunk)


_INSERT_KEYS = (
    f"INSERT INTO {SPAN_KEYS.name} (store, build, trace_id, span_id, is_root) "
    "SELECT ?, ?, trace.key, span.value, kind.key = 0 "
    "FROM json_each(?) AS trace, json_each(trace.value) AS kind, json_each(kind.value) AS span"
)
"""SQLite: insert the keys of ``_keys_document``: every value is a ``json_each`` column, so no
row's JSON is rendered and parsed again (a fifth less work than a ``[trace, span, root]``
array per key read back with ``json_extract``)."""


def _keys_document(keys: Sequence[tuple[str, str, bool]]) -> str:
    """``{trace id: [[root span ids], [other span ids]]}`` of (trace id, span id, is root) keys.

    Every key appears once per time it is given (a repeated key still fails the constraint).
    """
    traces: dict[str, tuple[list[str], list[str]]] = {}
    for trace_id, span_id, is_root in keys:
        spans = traces.get(trace_id)
        if spans is None:
            spans = traces[trace_id] = ([], [])
        spans[0 if is_root else 1].append(span_id)
    return orjson.dumps(traces).decode()


_BY_TRACE = (
    f"FROM json_each(?) AS wanted CROSS JOIN {SPAN_KEYS.name} AS k "
    "ON k.store = ? AND k.trace_id = wanted.value WHERE "
)
_STORED_KEYS = f"SELECT k.trace_id, k.span_id {_BY_TRACE} k.build = ?"
_ROOTS = f"SELECT k.trace_id, k.build {_BY_TRACE} k.is_root IS 1"
"""SQLite lookups by trace, the ids walked in order and each looked up in the key (``CROSS
JOIN`` fixes that plan; an ``IN`` list of them is first copied into a temporary b-tree, a
third more work per id)."""


def _by_trace(
    connection: Connection, query: str, trace_ids: Iterable[str], parameters: tuple[str, ...]
) -> list[tuple[str, str]]:
    """The rows of a ``_BY_TRACE`` query (SQLite) for these traces."""
    wanted = set(trace_ids)
    if not wanted:
        return []
    ids = orjson.dumps(list(wanted)).decode()
    result = connection.exec_driver_sql(query, (ids, *parameters))
    return [(first, second) for first, second in result]


def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
    # As in statedb: wait for other writers (busy_timeout first, WAL takes a lock).
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA busy_timeout=30000")
    # A new database gets 16 KiB pages: the keys' b-tree splits a quarter as often, an eighth
    # less work per stored span. Ignored by a database that exists (its pages stay as they are).
    cursor.execute("PRAGMA page_size=16384")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def ledger_engine(url: str) -> Engine:
    """A cached engine for ``url`` with the ledger's tables created (race-free)."""
    with _LOCK:
        engine = _ENGINES.get(url)
        if engine is not None:
            return engine
        if url.startswith("sqlite:///"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url)
            event.listen(engine, "connect", _sqlite_pragmas)
        else:
            engine = create_engine(url, pool_pre_ping=True)
        for attempt in range(20):
            try:
                METADATA.create_all(engine)
                break
            except DBAPIError:  # another process created a table between check and create
                if attempt == 19:
                    raise
                time.sleep(0.05 * (attempt + 1))
        _ENGINES[url] = engine
        return engine


def dispose_ledgers() -> None:
    """Close every cached ledger engine (before dropping a database)."""
    with _LOCK:
        for engine in _ENGINES.values():
            engine.dispose()
        _ENGINES.clear()


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
                found = _by_trace(connection, _STORED_KEYS, trace_ids, (self.store, build))
                return set(found)
            for among in _trace_filters(connection, trace_ids):
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
    ) -> None:
        """Record a part and its (trace id, span id, is root) keys, in the caller's transaction.

        Raises ``sqlalchemy.exc.IntegrityError`` when another writer stored one of the keys
        first; the caller rolls back.
        """
        connection.execute(
            insert(PARTS),
            [{"store": self.store, "path": path, "build": build, "day": day, "rows": len(keys)}],
        )
        if connection.dialect.name == "sqlite":
            # One statement over the keys as one JSON document: SQLite unpacks it in C, which
            # costs about half of the driver's executemany binding five values per row (and a
            # tenth of Core's dict rows), on the hot path. PostgreSQL keeps Core, which
            # batches rows into multi-row VALUES.
            connection.exec_driver_sql(_INSERT_KEYS, (self.store, build, _keys_document(keys)))
            return
        for chunk in _chunks(keys, 5000):
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
    ) -> bool:
        """Swap parts for their compacted union, in the caller's transaction.

        The keys stay (they name spans, not parts). False when another compaction removed one
        of ``old`` first: the caller rolls back, or the spans would be read twice.
        """
        removed = 0
        for chunk in _chunks(old):
            removed += connection.execute(
                delete(PARTS).where(PARTS.c.store == self.store, PARTS.c.path.in_(chunk))
            ).rowcount
        if removed != len(old):
            return False
        connection.execute(
            insert(PARTS),
            [{"store": self.store, "path": new, "build": build, "day": day, "rows": rows}],
        )
        return True

    def parts(self, build: str | None = None, day: str | None = None) -> list[tuple[str, str, int]]:
        """(path, day, rows) of the recorded parts, sorted by path (optionally one build/day)."""
        query = select(PARTS.c.path, PARTS.c.day, PARTS.c.rows).where(PARTS.c.store == self.store)
        if build is not None:
            query = query.where(PARTS.c.build == build)
        if day is not None:
            query = query.where(PARTS.c.day == day)
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
                    _by_trace(connection, _ROOTS, trace_ids, (self.store,))
                ):
                    found.setdefault(trace_id, build)
                return found
            for among in _trace_filters(connection, trace_ids):
                query = select(SPAN_KEYS.c.trace_id, SPAN_KEYS.c.build).where(
                    SPAN_KEYS.c.store == self.store, SPAN_KEYS.c.is_root.is_(True), among
                )
                for trace_id, build in sorted(connection.execute(query)):
                    found.setdefault(trace_id, build)
        return found

    def builds_of(self, trace_ids: Iterable[str]) -> dict[str, dict[str, bool]]:
        """For each trace: the builds holding its spans, each with whether it holds a root."""
        found: dict[str, dict[str, bool]] = {}
        with self.engine.connect() as connection:
            for among in _trace_filters(connection, trace_ids):
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
