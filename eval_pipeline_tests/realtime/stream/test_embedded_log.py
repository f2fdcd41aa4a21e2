"""The embedded log's reads stay cheap as the log grows: every read is a search by sequence.

Contract: each statement a consumer runs against ``stream_log`` while claiming (the idle
check and the claim itself) is planned by SQLite as a search bounded by (stream, seq), with
no scan of the stream's rows and no sort of them; a state database made before the index
existed gets it when the stream is opened.
"""

import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import event, text

from eval_pipeline.realtime.stream import open_stream
from eval_pipeline.realtime.stream.embedded import EmbeddedStream
from eval_pipeline.statedb import dispose_all
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

DAY = "2026-12-01"


def _open(home: Path) -> EmbeddedStream:
    stream = open_stream(home, None, prefix=f"t{uuid.uuid4().hex[:12]}")
    assert isinstance(stream, EmbeddedStream)
    return stream


def _log_reads_while_claiming(stream: EmbeddedStream) -> list[tuple[str, Any]]:
    """The SELECTs on ``stream_log`` a consumer ran for two fetches, with their parameters."""
    for number in range(3):
        rows = agent_trace_rows(f"{number:02x}" * 16)
        stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
    seen: list[tuple[str, Any]] = []

    def note(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "stream_log" in statement:
            seen.append((statement, parameters))

    consumer = stream.consumer("realtime-detectors")
    event.listen(stream.engine, "before_cursor_execute", note)
    try:
        consumer.ack(consumer.fetch(5, timeout_s=0.1))
        consumer.fetch(5, timeout_s=0.1)
    finally:
        event.remove(stream.engine, "before_cursor_execute", note)
        consumer.close()
    return seen


def _plans(stream: EmbeddedStream, reads: list[tuple[str, Any]]) -> list[list[str]]:
    """SQLite's query plan of each read, one string per step."""
    plans = []
    with stream.engine.connect() as connection:
        raw = connection.connection.dbapi_connection
        assert raw is not None
        for statement, parameters in reads:
            rows = raw.execute(f"EXPLAIN QUERY PLAN {statement}", parameters).fetchall()
            plans.append([str(row[-1]).replace(" ", "") for row in rows])
    return plans


def test_consumer_reads_search_the_log_by_sequence(isolated_home: Path) -> None:
    stream = _open(isolated_home)
    plans = _plans(stream, _log_reads_while_claiming(stream))
    assert any(any("seq>?" in step for step in plan) for plan in plans), plans
    for plan in plans:
        assert not any("TEMP" in step for step in plan), plan  # no sort of the rows read
        for step in plan:
            if "stream_log" in step:  # a range after a sequence, or one message by its key
                assert "seq>?" in step or "rowid=?" in step, plan


def test_an_older_state_database_gets_the_read_index(isolated_home: Path) -> None:
    stream = _open(isolated_home)
    with stream.engine.begin() as connection:
        connection.execute(text("DROP INDEX IF EXISTS stream_log_by_seq"))
    dispose_all()
    reopened = _open(isolated_home)
    with reopened.engine.connect() as connection:
        names = connection.execute(
            text("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'stream_log'")
        ).scalars()
        assert "stream_log_by_seq" in set(names)
