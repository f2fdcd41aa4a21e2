"""The ledger records exactly the keys it is given, and finds them, on SQLite and PostgreSQL.

SQLite takes the keys as one JSON document grouped by trace (``ledger_queries.keys_document``);
PostgreSQL as rows. Either way
every (trace id, span id, is root) key is one ledger row, and a key given twice, or already
stored, fails the part's commit.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from eval_pipeline.traces.store.ledger import SPAN_KEYS, Ledger, dispose_ledgers, ledger_engine
from eval_pipeline_tests.defs.postgres import scratch_database

_KEYS = [
    ("t1", "a", True),
    ("t1", "b", False),
    ("t2", "c", False),
    ('t"é\u2028', "d\\", True),  # text JSON escapes
    ("t3", "1", True),  # a span id that reads as a number
    ("t3", "2", True),  # two roots in one trace
    ("t1", "e", False),  # a trace's keys apart in the batch
]


@pytest.fixture(params=["sqlite", "postgresql"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    if request.param == "sqlite":
        yield Ledger(ledger_engine(f"sqlite:///{tmp_path}/ledger.db"), "store")
        return
    with scratch_database() as url:
        yield Ledger(ledger_engine(url), "store")
        dispose_ledgers()


def _record(ledger: Ledger, path: str, keys: list[tuple[str, str, bool]]) -> None:
    with ledger.engine.begin() as connection:
        ledger.record(connection, build="b", day="d", path=path, keys=keys)


def test_every_key_is_one_row(ledger: Ledger) -> None:
    _record(ledger, "p1", _KEYS)
    query = select(SPAN_KEYS.c.trace_id, SPAN_KEYS.c.span_id, SPAN_KEYS.c.is_root).where(
        SPAN_KEYS.c.store == "store", SPAN_KEYS.c.build == "b"
    )
    with ledger.engine.connect() as connection:
        rows = sorted((t, s, bool(r)) for t, s, r in connection.execute(query))
    assert rows == sorted(_KEYS)
    assert ledger.roots(["t1", "t2", "t3", "t9"]) == {"t1": "b", "t3": "b"}
    assert ledger.stored_keys("b", ["t1", "t9"]) == {("t1", "a"), ("t1", "b"), ("t1", "e")}
    assert ledger.stored_keys("other", ["t1"]) == set()
    assert ledger.stored_keys("b", []) == set()


def test_a_repeated_or_stored_key_fails_the_commit(ledger: Ledger) -> None:
    with pytest.raises(IntegrityError):
        _record(ledger, "p1", [*_KEYS, ("t2", "c", False)])
    assert ledger.parts() == []  # rolled back whole
    _record(ledger, "p1", _KEYS)
    with pytest.raises(IntegrityError):
        _record(ledger, "p2", [("t9", "z", True), ("t3", "2", True)])
    assert [path for path, _, _ in ledger.parts()] == ["p1"]


_IDS = st.one_of(
    st.sampled_from(["t1", "t2", "ab" * 16, "0" * 16]),
    st.text(alphabet='"\\\x00\x1f\n aé𝔘', max_size=10),
    st.text(max_size=20),
)
