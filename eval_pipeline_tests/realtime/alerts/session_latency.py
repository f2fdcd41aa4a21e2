"""Session alert latency after the idle end, measured (not a test; run by hand).

``PYTHONPATH=. python -m eval_pipeline_tests.realtime.alerts.session_latency N IDLE_S [WORKERS]``
publishes N conversations of three turns in which the user asks the same thing three times,
all ending at once (every session due together: the worst case), to the embedded stream of
a fresh home; one plane judges the traces, and once the idle timeout has passed raises one
``repeated_question@1`` alert per session. Printed: how long publishing and judging took, and
the latency of the alerts after each session's idle end (``detected_at`` minus last span end
plus the timeout). IDLE_S must leave time to judge every trace before the end (20 s for 1,000).
"""

import os
import sys
import tempfile
import time
from pathlib import Path


def main(n: int, idle_s: float, workers: int = 1) -> None:
    home_dir = Path(tempfile.mkdtemp()) / "home"
    home_dir.mkdir()
    os.environ["EVAL_PIPELINE_HOME"] = str(home_dir)
    from eval_pipeline.home import Home
    from eval_pipeline.realtime.alerts.plane import RealtimePlane
    from eval_pipeline.realtime.alerts.store import AlertStore
    from eval_pipeline.realtime.detectors.config import DetectorConfig, SessionSettings
    from eval_pipeline.traces.store.span_table import span_row
    from eval_pipeline_tests.traces.sessions.conversations import SECOND, turn_spans

    home = Home(home_dir)
    config = DetectorConfig(quiet_period_s=0.2, sessions=SessionSettings(idle_timeout_s=idle_s))
    plane = RealtimePlane.start(home, config=config, prefix="latency", workers=workers)
    store = AlertStore(home.state_url)
    last_end = time.time_ns() + SECOND // 2
    rows = [
        span_row(span)
        for i in range(n)
        for turn in (1, 2, 3)
        for span in turn_spans(
            turn,
            "Can you cancel order #W5918442?",
            "One moment.",
            conversation=f"conv-{i}",
            start=last_end - 2 * SECOND - (3 - turn) * SECOND // 2,
        )
    ]
    began = time.monotonic()
    plane.stream.publish_rows(rows, builds=["production"] * len(rows), day="2026-12-07")
    published = time.monotonic() - began
    while plane.stats.sessions < n and time.monotonic() - began < 300:
        time.sleep(0.05)
    done = time.monotonic() - began
    plane.stop()
    idle_end = last_end / 1e9 + idle_s
    latencies = sorted(
        a.detected_at.timestamp() - idle_end
        for a in store.list_alerts()
        if a.detector == "repeated_question@1"
    )
    print(f"{len(rows)} spans published in {published:.2f} s; {plane.stats.traces} traces and")
    print(f"{plane.stats.sessions} sessions judged, {len(latencies)} alerts, after {done:.1f} s")
    if latencies:

        def at(q: float) -> float:
            return latencies[min(len(latencies) - 1, int(q * len(latencies)))]

        print(
            f"alert after idle end: min {latencies[0]:.3f} s, p50 {at(0.5):.3f} s, "
            f"p95 {at(0.95):.3f} s, max {latencies[-1]:.3f} s"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]), *(int(a) for a in sys.argv[3:4]))
