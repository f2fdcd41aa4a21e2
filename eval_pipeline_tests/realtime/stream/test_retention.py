"""The span stream stays bounded: by count and by age, on the embedded log and on JetStream.

Contract: the embedded log published into round after round keeps at most ``max_messages``
(give or take one publication), its database file stops growing once the cap is reached (the
pages of trimmed messages are reused), messages older than ``max_age_s`` go whatever their
number, and a consumer behind the cut is not stuck: it gets the newest messages and no claim
of a trimmed one is left; a JetStream stream is created with the same limits (and a stream
made before them is given them).
"""

import time
import uuid
from pathlib import Path

import pytest

from eval_pipeline.home import current_home
from eval_pipeline.realtime.stream import REALTIME_PLANE, open_stream
from eval_pipeline.realtime.stream.embedded import PENDING, EmbeddedStream
from eval_pipeline.realtime.stream.jetstream import JetStreamStream
from eval_pipeline.realtime.stream.retention import Retention
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

NATS_URL = "nats://127.0.0.1:4222"
DAY = "2026-12-01"


def _publish(stream: EmbeddedStream | JetStreamStream, first: int, traces: int) -> int:
    """Publish ``traces`` agent traces numbered from ``first``; how many messages they made."""
    published = 0
    for number in range(first, first + traces):
        rows = agent_trace_rows(f"{number:032x}")
        stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
        published += len(rows) + 1  # one per span and the trace's completion
    return published


def _embedded(retention: Retention) -> EmbeddedStream:
    stream = open_stream(
        current_home().ensure(), None, prefix=f"t{uuid.uuid4().hex[:12]}", retention=retention
    )
    assert isinstance(stream, EmbeddedStream)
    return stream


def test_the_embedded_log_keeps_at_most_its_count_and_its_file_stops_growing() -> None:
    stream = _embedded(Retention(max_messages=400, trim_interval_s=0))
    database = Path(current_home().state_url.removeprefix("sqlite:///"))
    sizes = []
    per_round = 0
    for round_number in range(12):
        per_round = _publish(stream, round_number * 40, 40)
        assert stream.message_count() <= 400 + per_round
        sizes.append(database.stat().st_size)
    assert per_round * 12 > 4 * 400  # far more was published than is kept
    assert sizes[-1] <= sizes[5] * 1.1, sizes  # reached its size with the cap, then flat


def test_messages_past_their_age_go_and_a_consumer_behind_the_cut_is_not_stuck() -> None:
    stream = _embedded(Retention(max_age_s=1.0, trim_interval_s=0))
    consumer = stream.consumer(REALTIME_PLANE)
    _publish(stream, 0, 5)
    claimed = consumer.fetch(3, timeout_s=1)  # claimed, never acknowledged
    assert len(claimed) == 3
    time.sleep(1.2)
    fresh = _publish(stream, 100, 2)  # this publication trims the aged ones
    assert stream.message_count() == fresh
    got = []
    while batch := consumer.fetch(100, timeout_s=0.5):
        got.extend(batch)
        consumer.ack(batch)
    consumer.close()
    assert len(got) == fresh
    with stream.engine.connect() as connection:
        left = connection.execute(PENDING.select().where(PENDING.c.stream == stream.prefix)).all()
    assert left == []


def test_retention_that_keeps_nothing_is_refused() -> None:
    with pytest.raises(ValueError, match="max age"):
        Retention(max_age_s=0)
    with pytest.raises(ValueError, match="max messages"):
        Retention(max_messages=0)


@pytest.mark.nats
def test_a_jetstream_stream_gets_the_retention_limits(isolated_home: Path) -> None:
    prefix = f"t{uuid.uuid4().hex[:12]}"
    before = open_stream(isolated_home, NATS_URL, prefix=prefix, retention=Retention())
    limited = Retention(max_age_s=3600.0, max_messages=50)
    assert isinstance(before, JetStreamStream)
    try:
        stream = open_stream(isolated_home, NATS_URL, prefix=prefix, retention=limited)
        assert isinstance(stream, JetStreamStream)
        _publish(stream, 0, 30)
        info = stream.run(stream._js.stream_info(stream.name), 10)
        assert info.config.max_msgs == 50 and info.config.max_age == 3600.0
        assert info.state.messages <= 50
        stream.close()
    finally:
        before.delete_stream()
        before.close()
