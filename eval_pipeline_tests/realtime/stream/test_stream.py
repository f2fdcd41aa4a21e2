"""The span stream's contract, on the embedded log (SQLite, PostgreSQL) and on NATS JetStream.

Contract: every published row arrives as an equal span, plus one trace-completed event per
ended root; publishing the same rows again delivers nothing new; the workers of one plane
share its messages (none delivered to two), every plane sees every message; an unacknowledged
delivery comes back (at least once) after ``ack_wait``, an acknowledged one never does; a
stream that cannot be reached raises ``StreamUnavailable``.
"""

import dataclasses
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from eval_pipeline.realtime.stream import (
    SpanEvent,
    SpanStream,
    StreamUnavailable,
    TraceCompleted,
    open_stream,
)
from eval_pipeline.realtime.stream.events import subject_token
from eval_pipeline.realtime.stream.jetstream import JetStreamStream
from eval_pipeline.statedb import dispose_all
from eval_pipeline.traces.model import SpanLink
from eval_pipeline.traces.store.span_table import row_span, span_row
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

NATS_URL = "nats://127.0.0.1:4222"
POSTGRES = "postgresql+psycopg2://postgres@127.0.0.1:5432"
DAY = "2026-12-01"


@pytest.fixture
def postgres_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh PostgreSQL database as the state database, dropped after."""
    name = f"stream_{uuid.uuid4().hex[:10]}"
    admin = create_engine(f"{POSTGRES}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = f"{POSTGRES}/{name}"
    monkeypatch.setenv("EVAL_PIPELINE_STATE_URL", url)
    try:
        yield url
    finally:
        dispose_all()
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(
    params=[
        "embedded",
        pytest.param("embedded-postgres", marks=pytest.mark.postgres),
        pytest.param("nats", marks=pytest.mark.nats),
    ]
)
def stream(request: pytest.FixtureRequest, isolated_home: Path) -> Iterator[SpanStream]:
    """A fresh stream on each back end (a unique JetStream stream, deleted after)."""
    if request.param == "embedded-postgres":
        request.getfixturevalue("postgres_state")
    prefix = f"t{uuid.uuid4().hex[:12]}"
    opened = open_stream(
        isolated_home, NATS_URL if request.param == "nats" else None, prefix=prefix
    )
    yield opened
    if isinstance(opened, JetStreamStream):
        opened.delete_stream()
    opened.close()


def drain(stream: SpanStream, plane: str, *, ack: bool = True, wait_s: float = 1.0) -> list:
    consumer = stream.consumer(plane, ack_wait_s=2.0)
    got = []
    while batch := consumer.fetch(100, timeout_s=wait_s):
        got.extend(batch)
        if ack:
            consumer.ack(batch)
    consumer.close()
    return got


def test_published_rows_arrive_as_equal_spans_with_one_completion_per_root(
    stream: SpanStream,
) -> None:
    rows = agent_trace_rows("a1" * 16, tool_error=True) + agent_trace_rows("b2" * 16)
    stream.publish_rows(rows, builds=["prod.v1"] * 3 + ["prod"] * 3, day=DAY)
    events = [d.event for d in drain(stream, "realtime-detectors")]
    spans = [e for e in events if isinstance(e, SpanEvent)]
    assert [e.span for e in spans] == [row_span(r) for r in rows]
    assert {(e.build, e.day) for e in spans} == {("prod.v1", DAY), ("prod", DAY)}
    completed = [e for e in events if isinstance(e, TraceCompleted)]
    assert sorted((e.trace_id, e.build) for e in completed) == [
        ("a1" * 16, "prod.v1"),
        ("b2" * 16, "prod"),
    ]


def test_publishing_the_same_rows_twice_delivers_them_once(stream: SpanStream) -> None:
    rows = agent_trace_rows("c3" * 16)
    stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
    stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
    assert len(drain(stream, "realtime-detectors")) == len(rows) + 1


def test_workers_of_a_plane_share_messages_and_each_plane_sees_all(stream: SpanStream) -> None:
    rows = [r for i in range(10) for r in agent_trace_rows(f"{i:032x}")]
    stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
    first, second = stream.consumer("realtime-detectors"), stream.consumer("realtime-detectors")
    seen: list[str] = []
    for consumer in (first, second, first, second):
        batch = consumer.fetch(12, timeout_s=1.0)
        consumer.ack(batch)
        seen += [_key(d.event) for d in batch]
    assert len(seen) == len(set(seen)) == len(rows) + 10
    assert len(drain(stream, "batch-sampler")) == len(rows) + 10


def test_an_unacknowledged_delivery_comes_back_and_an_acked_one_does_not(
    stream: SpanStream,
) -> None:
    rows = agent_trace_rows("d4" * 16)
    stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
    crashed = stream.consumer("realtime-detectors", ack_wait_s=1.0)
    taken = crashed.fetch(2, timeout_s=1.0)
    assert len(taken) == 2
    crashed.close()  # never acknowledged: the worker died
    time.sleep(1.2)
    again = drain(stream, "realtime-detectors", wait_s=1.5)
    assert {_key(d.event) for d in taken} <= {_key(d.event) for d in again}
    assert len({_key(d.event) for d in again}) == len(rows) + 1
    assert max(d.deliveries for d in again) == 2
    assert drain(stream, "realtime-detectors", wait_s=0.5) == []


def test_build_names_become_one_subject_token() -> None:
    assert subject_token("prod.v1 *>") == "prod~2Ev1~20~2A~3E"
    assert subject_token("candidate-2_b") == "candidate-2_b"


@pytest.mark.nats
def test_an_unreachable_nats_server_is_stream_unavailable(isolated_home: Path) -> None:
    with pytest.raises(StreamUnavailable):
        open_stream(isolated_home, "nats://127.0.0.1:1", prefix="unreachable")


def _key(event: SpanEvent | TraceCompleted) -> str:
    if isinstance(event, SpanEvent):
        return f"{event.span.trace_id}/{event.span.span_id}"
    return f"{event.trace_id}/completed"


def test_links_and_trace_state_arrive_as_stored(stream: SpanStream) -> None:
    """The columns added after the stream's first layout (links, trace state) round-trip."""
    linked = dataclasses.replace(
        row_span(agent_trace_rows("c3" * 16)[0]),
        trace_state="vendor=1",
        links=(SpanLink("d4" * 16, "00000000000000aa", "k=v", {"link.kind": "resumed"}),),
    )
    rows = [span_row(linked)]
    stream.publish_rows(rows, builds=["prod"], day=DAY)
    spans = [
        d.event.span for d in drain(stream, "realtime-detectors") if isinstance(d.event, SpanEvent)
    ]
    assert spans == [linked]


def test_a_short_fetch_on_an_idle_consumer_is_empty_never_an_outage(stream: SpanStream) -> None:
    """A fetch that finds nothing within its (short) timeout returns no deliveries.

    On NATS, nats-py's pull fetch raises ``asyncio.TimeoutError`` itself on some paths (the
    server's 408 arriving as the timer fires); that once surfaced as a bogus 15 s
    ``StreamUnavailable``, which stalled the detector worker between short fetches.
    """
    consumer = stream.consumer("realtime-detectors")
    try:
        for number in range(120):
            assert consumer.fetch(10, timeout_s=(0.001, 0.005, 0.01)[number % 3]) == []
    finally:
        consumer.close()


@pytest.mark.nats
def test_a_prefix_in_the_nats_url_names_the_stream(isolated_home: Path) -> None:
    prefix = f"t{uuid.uuid4().hex[:12]}"
    opened = open_stream(isolated_home, f"{NATS_URL}/{prefix}")
    assert isinstance(opened, JetStreamStream)
    try:
        assert (opened.prefix, opened.url) == (prefix, NATS_URL)
        rows = agent_trace_rows("e7" * 16)
        opened.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
        assert len(drain(opened, "realtime-detectors")) == len(rows) + 1  # and the completion
    finally:
        opened.delete_stream()
        opened.close()
    with pytest.raises(ValueError, match="letters, digits"):
        open_stream(isolated_home, f"{NATS_URL}/a.b")
