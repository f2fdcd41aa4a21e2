"""A worker behind on its stream raises span alerts before it judges traces.

Contract (issue 18, alert latency): a span-scope alert (a failed tool call) fires as soon as
its span is consumed; a trace-scope one waits for the quiet period anyway. So while it is
behind (a full fetch, or the stream says more is waiting), a worker defers judging due
traces, up to ``judge_lag_s`` past their due time, and spends the time on the spans; once it
has caught up it judges them all, each exactly as before. Judging used to run after every
batch, so under a backlog each failed call waited behind the traces judged ahead of it.
"""

from pathlib import Path

from eval_pipeline.home import Home
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.alerts.trace_buffer import TraceBuffer
from eval_pipeline.realtime.alerts.worker import DetectorWorker
from eval_pipeline.realtime.detectors.registry import default_detectors
from eval_pipeline.realtime.stream import open_stream
from eval_pipeline.realtime.stream.protocol import REALTIME_PLANE
from eval_pipeline_tests.realtime.alerts.test_plane import (
    DAY,
    QUICK,
    _span_scope,
    prefix,
    replayed,
    stream_url,
)
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

__all__ = ["prefix", "stream_url"]  # fixtures shared with test_plane

CLAIMED = "a1" * 16


def test_a_backlogged_worker_alerts_failed_calls_before_judging_traces(
    isolated_home: Path, stream_url: str | None, prefix: str
) -> None:
    home = Home(isolated_home)
    judged = agent_trace_rows(CLAIMED, answer="I have refunded your order.")  # no refund made
    failing = [
        row
        for number in range(20)
        for row in agent_trace_rows(f"{number:032x}", tool_error=True, root_ends=False)
    ]
    stream = open_stream(home, stream_url, prefix=prefix)
    store = AlertStore(home.state_url)
    worker = DetectorWorker(
        stream,
        store,
        TraceBuffer(home.state_url, REALTIME_PLANE),
        detectors=default_detectors(QUICK),
        quiet_period_s=0.0,
        batch=10,
        judge_lag_s=60.0,
    )
    try:
        for rows in (judged, failing):  # the completed trace first, then the backlog
            stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
        seen: list[tuple[int, int]] = []  # (tool errors, trace alerts) after each step
        while worker.stats.traces < 1 and len(seen) < 200:
            worker.step(timeout_s=0.2)
            detectors = [a.detector for a in store.list_alerts()]
            seen.append(
                (detectors.count("tool_error@2"), len(detectors) - detectors.count("tool_error@2"))
            )
    finally:
        worker.stop()
        stream.close()
    first_judged = next(i for i, (_, traces) in enumerate(seen) if traces)
    assert seen[first_judged][0] == 20  # every failed call alerted before the trace was judged
    assert first_judged >= len(judged + failing) // 10  # not judged while behind
    assert {a.alert_id for a in store.list_alerts()} == replayed(judged, "prod") | _span_scope(
        failing, "prod"
    )
