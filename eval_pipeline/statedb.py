"""The operational state database (judge cache, ingestion ledger, builds, review queue).

SQLAlchemy Core over SQLite by default (``<home>/state.db``) and PostgreSQL in production
(``EVAL_PIPELINE_STATE_URL``). Each package declares its tables on the shared ``METADATA`` in
its own module; ``engine_for`` creates every declared table once per URL.
"""

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import Connection, Engine, Insert, MetaData, Table, create_engine, event, insert
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DBAPIError

METADATA = MetaData()

_ENGINES: dict[str, Engine] = {}
_LOCK = threading.Lock()


def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
    # WAL lets readers (the Dagster UI, the CLI) run while a job writes; busy_timeout avoids
    # "database is locked" when two processes write at once.
    # busy_timeout comes first: switching to WAL takes a lock another opener may hold.
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def engine_for(url: str) -> Engine:
    """A cached engine for ``url`` with every table declared on ``METADATA`` created."""
    with _LOCK:
        engine = _ENGINES.get(url)
        if engine is None:
            if url.startswith("sqlite:///"):
                Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
                engine = create_engine(url)
                event.listen(engine, "connect", _sqlite_pragmas)
            else:
                engine = create_engine(url, pool_pre_ping=True)
            _ENGINES[url] = engine
        _create_tables(engine)
        return engine


def _create_tables(engine: Engine, attempts: int = 20) -> None:
    """Create the declared tables, race-free against other processes doing the same.

    ``create_all`` checks before it creates, so two processes opening a fresh database at once
    can both try to create one table; the loser fails ("already exists", a unique violation
    on PostgreSQL's catalog, or a lock timeout) and, trying again, finds the table there.
    """
    for attempt in range(attempts):
        try:
            METADATA.create_all(engine)
            return
        except DBAPIError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.05 * (attempt + 1))


def dispose_all() -> None:
    """Close every cached engine (tests that drop databases call this first)."""
    with _LOCK:
        for engine in _ENGINES.values():
            engine.dispose()
        _ENGINES.clear()


def insert_new(connection: Connection, table: Table) -> Insert:
    """An insert that skips rows whose unique key is stored already (retries add nothing).

    ``rowcount`` of a one-row execute tells whether the row was new.
    """
    if connection.dialect.name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing()
    return insert(table).prefix_with("OR IGNORE")


def insert_tuples(
    connection: Connection,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    skip_existing: bool = False,
) -> None:
    """Insert ``rows`` (values in ``columns`` order) in one ``executemany`` of the driver.

    The hot paths' bulk inserts (the stream's log and claims, the detectors' trace buffer):
    SQLAlchemy Core builds a parameter dictionary per row, which cost more than the insert.
    ``skip_existing``: as ``insert_new``, rows whose unique key is stored already are skipped.
    """
    if not rows:
        return
    marker = "?" if connection.dialect.paramstyle == "qmark" else "%s"
    names = ", ".join(columns)
    values = ", ".join([marker] * len(columns))
    postgres = connection.dialect.name == "postgresql"
    verb = "INSERT OR IGNORE" if skip_existing and not postgres else "INSERT"
    tail = " ON CONFLICT DO NOTHING" if skip_existing and postgres else ""
    connection.exec_driver_sql(
        f"{verb} INTO {table.name} ({names}) VALUES ({values}){tail}", list(map(tuple, rows))
    )
