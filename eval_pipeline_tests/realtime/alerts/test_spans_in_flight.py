"""A trace is judged only once the spans published with its root are buffered.

Contract (issue 18): a worker that dies holding fetched, unacknowledged spans leaves them in
flight until the ack wait passes; a trace-completed event that reaches another worker first
must not be judged on the spans that happen to be buffered. The completion names the spans
published with its root; a worker that finds some missing leaves it unacknowledged, and it
comes back after the ack wait, by when the spans in flight are delivered again too. This
was the CI failure of stop 23 (``test_worker_restart`` on NATS): a restarted worker judged a
trace without its refund span and raised a ``claimed_action`` alert a replay does not raise.
"""

import time
from pathlib import Path

from eval_pipeline.home import Home
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.alerts.trace_buffer import TraceBuffer
from eval_pipeline.realtime.alerts.worker import DetectorWorker
from eval_pipeline.realtime.detectors.registry import default_detectors
from eval_pipeline.realtime.stream import open_stream
from eval_pipeline.realtime.stream.decoding import decode
from eval_pipeline.realtime.stream.encoding import encode_rows
from eval_pipeline.realtime.stream.events import SpanEvent, TraceCompleted
from eval_pipeline.realtime.stream.protocol import REALTIME_PLANE, Delivery
from eval_pipeline_tests.realtime.alerts.test_plane import DAY, QUICK, prefix, replayed, stream_url
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

__all__ = ["prefix", "stream_url"]  # fixtures shared with test_plane

TRACE = "ab" * 16
ACK_WAIT_S = 3.0  # longer than a loaded host takes between a worker's fetch and its ack


def test_a_completion_names_the_spans_published_with_its_root() -> None:
    rows = agent_trace_rows(TRACE, tools=("refund_order", "lookup_order"))
    messages = encode_rows("evalpipe", rows, ["prod"] * len(rows), DAY)
    (completed,) = [
        e for e in decode([m.payload for m in messages]) if isinstance(e, TraceCompleted)
    ]
    assert completed.span_ids == tuple(row[1] for row in rows)


def test_a_trace_waits_for_its_spans_held_by_a_dead_worker(
    isolated_home: Path, stream_url: str | None, prefix: str
) -> None:
    home = Home(isolated_home)
    # The refund was made, so a claim of it raises nothing; the lookup failed (one span alert).
    rows = agent_trace_rows(
        TRACE,
        tools=("refund_order", "lookup_order"),
        tool_error=True,
        answer="I have refunded your order.",
    )
    expected = replayed(rows, "prod")
    assert len(expected) == 1
    stream = open_stream(home, stream_url, prefix=prefix)
    dead_stream = open_stream(home, stream_url, prefix=prefix)  # the dead worker's connection
    try:
        stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
        dead = dead_stream.consumer(REALTIME_PLANE, ack_wait_s=ACK_WAIT_S)
        in_flight: list[Delivery] = []
        deadline = time.monotonic() + 30
        while len(in_flight) < 3 and time.monotonic() < deadline:
            in_flight += dead.fetch(3 - len(in_flight), timeout_s=2)
        # root, refund, lookup: fetched, never acknowledged
        assert [d.event.span.span_id for d in in_flight if isinstance(d.event, SpanEvent)] == [
            row[1] for row in rows[:3]
        ]
        store = AlertStore(home.state_url)
        worker = DetectorWorker(
            stream,
            store,
            TraceBuffer(home.state_url, REALTIME_PLANE),
            detectors=default_detectors(QUICK),
            quiet_period_s=QUICK.quiet_period_s,
            ack_wait_s=ACK_WAIT_S,
            batch=10,
        )
        deadline = time.monotonic() + 60
        while worker.stats.traces < 1 and time.monotonic() < deadline:
            worker.step(timeout_s=0.2)
        worker.stop()
    finally:
        dead_stream.close()
        stream.close()
    assert worker.stats.traces == 1
    assert worker.stats.spans == len(rows)
    alerts = store.list_alerts()
    assert {a.alert_id for a in alerts} == expected
    assert [a.detector for a in alerts] == ["tool_error@2"]
