"""The span ledger's table layouts: the current one, and the one ledgers were created with before.

Contract: a new SQLite ledger keeps its span keys in the key's own b-tree (``WITHOUT ROWID``);
a ledger created earlier (a rowid table with a unique constraint on the same key) is used as it
is: every span is stored once, a repeated write stores nothing, a key committed first by
another writer makes the part's commit fail so the writer retries without it, and the lookups
by trace (roots, builds) answer the same.
"""

import sqlite3

import pytest
from sqlalchemy.exc import IntegrityError

from eval_pipeline.traces.model import Operation
from eval_pipeline.traces.store.ledger import SPAN_KEYS, dispose_ledgers
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import make_span

_EARLIER_LAYOUT = f"""
CREATE TABLE {SPAN_KEYS.name} (
    store VARCHAR(64) NOT NULL,
    build VARCHAR(200) NOT NULL,
    trace_id VARCHAR(128) NOT NULL,
    span_id VARCHAR(128) NOT NULL,
    is_root BOOLEAN NOT NULL,
    CONSTRAINT trace_span_keys_once UNIQUE (store, trace_id, build, span_id)
)
"""


def _spans(trace: str) -> list:
    root = make_span("1", trace_id=trace, operation=Operation.INVOKE_AGENT, agent_name="A")
    return [root, make_span("2", "1", trace_id=trace, operation=Operation.CHAT)]


def _layout(tmp_path) -> str:
    with sqlite3.connect(tmp_path / "ledger.db") as connection:
        (sql,) = connection.execute(
            "SELECT sql FROM sqlite_master WHERE name = ?", (SPAN_KEYS.name,)
        ).fetchone()
    return " ".join(sql.split())


def test_a_new_sqlite_ledger_keeps_keys_without_a_rowid(tmp_path):
    TraceStore(tmp_path).write_spans(_spans("ab" * 16), build="b")
    assert _layout(tmp_path).endswith("WITHOUT ROWID")


@pytest.fixture
def earlier_ledger(tmp_path):
    """A store whose ledger database was created with the earlier layout."""
    with sqlite3.connect(tmp_path / "ledger.db") as connection:
        connection.execute(_EARLIER_LAYOUT)
    yield tmp_path
    dispose_ledgers()  # the next test's engine for this path starts afresh


def test_a_ledger_of_the_earlier_layout_stores_each_span_once(earlier_ledger):
    store = TraceStore(earlier_ledger)
    assert "WITHOUT ROWID" not in _layout(earlier_ledger)
    spans = _spans("ab" * 16)
    assert store.write_spans(spans, build="b") == 2
    assert store.write_spans(spans, build="b") == 0
    assert store.write_spans([*spans, *_spans("cd" * 16)], build="b") == 2
    assert len(store.read_spans("b")) == 4
    assert store.trace_builds("cd" * 16) == {"b": True}
    assert store.builds_for(_spans("ab" * 16)[1:]) == ["b"]  # the stored root's build


def test_a_key_committed_by_another_writer_fails_the_commit_on_the_earlier_layout(
    earlier_ledger,
):
    store = TraceStore(earlier_ledger)
    store.write_spans(_spans("ab" * 16), build="b")
    with pytest.raises(IntegrityError):
        store._record("b", "all", "spans/other.parquet", [("ab" * 16, "0" * 15 + "2", False)])
    assert "spans/other.parquet" not in [p for p, _, _ in store.ledger.parts("b")]


def test_a_ledger_made_before_the_trusted_column_gets_it_and_its_parts_are_trusted(tmp_path):
    import sqlite3

    from sqlalchemy import inspect

    from eval_pipeline.traces.store.ledger_tables import ledger_engine

    database = tmp_path / "old.db"
    with sqlite3.connect(database) as connection:
        connection.execute(
            "CREATE TABLE trace_parts (store VARCHAR(64), path VARCHAR(500), "
            "build VARCHAR(200) NOT NULL, day VARCHAR(64) NOT NULL, rows INTEGER NOT NULL, "
            "PRIMARY KEY (store, path))"
        )
        connection.execute("INSERT INTO trace_parts VALUES ('s', 'p', 'b', 'all', 1)")
    engine = ledger_engine(f"sqlite:///{database}")
    assert "trusted" in {c["name"] for c in inspect(engine).get_columns("trace_parts")}
    from eval_pipeline.traces.store.ledger import Ledger

    ledger = Ledger(engine, "s")
    assert ledger.parts("b", trusted=True) == [("p", "all", 1)]
    assert ledger.parts("b", trusted=False) == []
