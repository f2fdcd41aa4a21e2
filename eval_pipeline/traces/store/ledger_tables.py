"""The span ledger's tables and their engine (race-free creation, SQLite settings).

The tables live in the state database but are declared on their own ``MetaData`` and created
here (``ledger_engine``): ``traces`` imports nothing else of the project, ``statedb`` included.
Creation is race-free the same way ``statedb.engine_for`` is.
"""

import threading
import time
from pathlib import Path

from sqlalchemy import (
    Boolean,
    Column,
    Engine,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    create_engine,
    event,
    inspect,
)
from sqlalchemy.exc import DBAPIError

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
    # Whether the part's writer could write any build (local ingestion, an evaluation token the
    # receiver honoured): only such parts' rootless fragments join another build's trace
    # (``trace_store``). NULL in a ledger made before the column: written locally, trusted.
    Column("trusted", Boolean, nullable=True),
)


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
                _add_missing_columns(engine)
                break
            except DBAPIError:  # another process created a table between check and create
                if attempt == 19:
                    raise
                time.sleep(0.05 * (attempt + 1))
        _ENGINES[url] = engine
        return engine


def _add_missing_columns(engine: Engine) -> None:
    """Add the columns newer than a ledger's tables (``trace_parts.trusted``), all nullable."""
    present = {column["name"] for column in inspect(engine).get_columns(PARTS.name)}
    for column in PARTS.columns:
        if column.name not in present:
            kind = column.type.compile(dialect=engine.dialect)
            with engine.begin() as connection:
                connection.exec_driver_sql(
                    f"ALTER TABLE {PARTS.name} ADD COLUMN {column.name} {kind}"
                )


def dispose_ledgers() -> None:
    """Close every cached ledger engine (before dropping a database)."""
    with _LOCK:
        for engine in _ENGINES.values():
            engine.dispose()
        _ENGINES.clear()
