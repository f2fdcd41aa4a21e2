"""The real-time plane end to end, on the embedded stream and on the local NATS server.

Contract: a failed tool call published to the stream becomes one ``tool_error`` alert in the
state database and one POST to the webhook, even when the same rows are published twice and
the webhook fails at first; trace detectors fire once the root ended and the quiet period
passed; the alerts the live plane raises are the alerts a replay of the same spans raises.
"""

import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from eval_pipeline.home import Home
from eval_pipeline.realtime.alerts.alert import Alert
from eval_pipeline.realtime.alerts.plane import RealtimePlane
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.detectors.config import DetectorConfig
from eval_pipeline.realtime.detectors.registry import default_detectors, detect
from eval_pipeline.realtime.stream import SpanStream, open_stream
from eval_pipeline.realtime.stream.jetstream import JetStreamStream
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.store.span_table import Row, row_span
from eval_pipeline_tests.realtime.alerts.webhook import Webhook
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

NATS_URL = "nats://127.0.0.1:4222"
DAY = "2026-12-01"
QUICK = DetectorConfig(quiet_period_s=0.3)


@pytest.fixture(params=["embedded", pytest.param("nats", marks=pytest.mark.nats)])
def stream_url(request: pytest.FixtureRequest) -> str | None:
    return NATS_URL if request.param == "nats" else None


@pytest.fixture
def prefix(stream_url: str | None, isolated_home: Path) -> Iterator[str]:
    """A unique stream name; its JetStream stream is deleted after the test."""
    name = f"t{uuid.uuid4().hex[:12]}"
    yield name
    if stream_url is not None:
        stream = open_stream(isolated_home, stream_url, prefix=name)
        assert isinstance(stream, JetStreamStream)
        stream.delete_stream()
        stream.close()


def wait_for(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def replayed(rows: list[Row], build: str) -> set[str]:
    """Alert ids a replay of these spans raises (the batch path)."""
    detectors = default_detectors(QUICK)
    runs = assemble_runs(row_span(r) for r in rows)
    return {Alert.from_flag(f, build).alert_id for run in runs for f in detect(run, detectors)}


def publish_twice(stream: SpanStream, rows: list[Row], build: str) -> None:
    for _ in range(2):
        stream.publish_rows(rows, builds=[build] * len(rows), day=DAY)


def test_a_failed_tool_call_alerts_once_through_store_and_webhook(
    isolated_home: Path, stream_url: str | None, prefix: str
) -> None:
    home = Home(isolated_home)
    rows = agent_trace_rows("e5" * 16, tool_error=True, answer="I have refunded your order.")
    hook = Webhook(fail_first=2)
    plane = RealtimePlane.start(
        home, stream_url=stream_url, prefix=prefix, webhook=hook.url, config=QUICK, workers=2
    )
    try:
        publish_twice(plane.stream, rows, "prod")
        store = AlertStore(home.state_url)
        expected = replayed(rows, "prod")
        wait_for(lambda: {a.alert_id for a in store.list_alerts()} == expected)
        wait_for(lambda: sorted(hook.ids()) == sorted(expected))
        time.sleep(0.5)  # nothing more arrives
    finally:
        plane.stop()
        hook.close()
    alerts = store.list_alerts()
    assert sorted(a.detector for a in alerts) == ["claimed_action@1", "tool_error@2"]
    assert len(hook.ids()) == len(set(hook.ids())) == 2
    tool = next(a for a in alerts if a.detector == "tool_error@2")
    assert (tool.trace_id, tool.build, tool.span_ids) == ("e5" * 16, "prod", (rows[1][1],))
    assert hook.requests == 4  # two 503s were retried with backoff


def test_three_workers_raise_each_alert_once_and_wait_for_the_root(
    isolated_home: Path, stream_url: str | None, prefix: str
) -> None:
    home = Home(isolated_home)
    rows = [
        row
        for i in range(30)
        for row in agent_trace_rows(f"{i:032x}", tool_error=i % 3 == 0, root_ends=i != 7)
    ]
    plane = RealtimePlane.start(
        home, stream_url=stream_url, prefix=prefix, config=QUICK, workers=3, batch=8
    )
    try:
        publish_twice(plane.stream, rows, "prod")
        store = AlertStore(home.state_url)
        expected = replayed([r for r in rows if r[0] != f"{7:032x}"], "prod") | {
            a
            for a in replayed([r for r in rows if r[0] == f"{7:032x}"], "prod")
            if a in _span_scope(rows, "prod")
        }
        wait_for(lambda: {a.alert_id for a in store.list_alerts()} == expected)
        wait_for(lambda: plane.stats.spans == len(rows) and plane.stats.traces == 29)
    finally:
        plane.stop()
    assert len(store.list_alerts()) == len(expected)


def _span_scope(rows: list[Row], build: str) -> set[str]:
    """Ids of the span-scope alerts (raised without waiting for the root)."""
    detectors = [d for d in default_detectors(QUICK) if d.scope == "span"]
    return {
        Alert.from_flag(f, build).alert_id
        for r in rows
        for d in detectors
        for f in d.detect_span(row_span(r))
    }
