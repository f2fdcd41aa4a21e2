"""A worker judges due traces a slice per step, so a backlog of them never holds a batch.

Contract (issue 18, alert latency): a step judges at most ``judge_slice`` due traces (more
only when it fetched more than half as many completions, so judging still gains on a
backlog), the first held first, and the next fetch does not wait while more are due. Judging
thousands of traces in one step held the span alerts of the next batch for a second. Every
trace is still judged, each exactly as before.
"""

import time
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

TRACES = 12
SLICE = 4


def test_due_traces_are_judged_a_slice_per_step_and_a_new_failed_call_alerts_at_once(
    isolated_home: Path, stream_url: str | None, prefix: str
) -> None:
    home = Home(isolated_home)
    claimed = [
        row
        for number in range(TRACES)
        for row in agent_trace_rows(f"{number:032x}", answer="I have refunded your order.")
    ]
    failing = agent_trace_rows("f" * 32, tool_error=True, root_ends=False)
    stream = open_stream(home, stream_url, prefix=prefix)
    store = AlertStore(home.state_url)
    worker = DetectorWorker(
        stream,
        store,
        TraceBuffer(home.state_url, REALTIME_PLANE),
        detectors=default_detectors(QUICK),
        quiet_period_s=QUICK.quiet_period_s,
        batch=1000,
        judge_slice=SLICE,
    )
    try:
        stream.publish_rows(claimed, builds=["prod"] * len(claimed), day=DAY)
        while worker.stats.spans < len(claimed):
            worker.step(timeout_s=0.2)
        assert worker.stats.traces == 0  # in their quiet period
        time.sleep(QUICK.quiet_period_s + 0.1)  # now every trace is due
        stream.publish_rows(failing, builds=["prod"] * len(failing), day=DAY)
        judged: list[int] = []  # traces judged after each step
        while worker.stats.traces < TRACES and len(judged) < 50:
            worker.step(timeout_s=0.2)
            judged.append(worker.stats.traces)
            if len(judged) == 1:  # the step that fetched the failed call
                assert {a.alert_id for a in store.list_alerts()} >= _span_scope(failing, "prod")
    finally:
        worker.stop()
        stream.close()
    assert judged[:3] == [SLICE, 2 * SLICE, 3 * SLICE]
    assert {a.alert_id for a in store.list_alerts()} == replayed(claimed, "prod") | _span_scope(
        failing, "prod"
    )
