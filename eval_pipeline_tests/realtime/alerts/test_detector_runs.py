"""Whether any detector has run on a home is recorded, so "0 alerts" is never ambiguous.

Contract: a home where no detector ran lists no detector run; a live worker of the plane records
its run when it starts and counts the spans and traces it checked; ``detect --record`` records
a replay of the build it checked. ``alerts list`` (text) says "no detector has run on this
home" when none did, and when the detectors ran and raised nothing, says when they last ran.
"""

from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import Home, current_home
from eval_pipeline.realtime.alerts.detector_runs import DetectorRuns
from eval_pipeline.realtime.alerts.plane import RealtimePlane
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.realtime.alerts.test_plane import DAY, QUICK, wait_for
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows


def _alerts_text() -> str:
    result = CliRunner().invoke(cli, ["alerts", "list"])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_fresh_home_says_no_detector_has_run(isolated_home: Path) -> None:
    assert DetectorRuns(Home(isolated_home).state_url).latest() is None
    text = _alerts_text()
    assert "0 alert(s)" in text and "no detector has run on this home" in text
    assert "eval-pipeline serve" in text  # and how to start them


def test_a_live_worker_records_its_run_and_the_spans_it_checked(isolated_home: Path) -> None:
    home = Home(isolated_home)
    plane = RealtimePlane.start(home, config=QUICK, workers=1)
    try:
        rows = agent_trace_rows("a7" * 16)  # a clean run: no alert
        plane.stream.publish_rows(rows, builds=["prod"] * len(rows), day=DAY)
        runs = DetectorRuns(home.state_url)
        wait_for(lambda: (runs.latest() or {}).get("traces", 0) >= 1)
    finally:
        plane.stop()
    latest = runs.latest()
    assert latest is not None and latest["kind"] == "live" and latest["spans"] == len(rows)
    text = _alerts_text()
    assert "0 alert(s)" in text and "detectors last ran" in text
    assert "no detector has run" not in text


def test_a_recorded_replay_counts_as_a_detector_run() -> None:
    rows = agent_trace_rows("b8" * 16)
    TraceStore(current_home().ensure().store).write_rows(rows, build="cand")
    result = CliRunner().invoke(cli, ["detect", "--build", "cand", "--record"])
    assert result.exit_code == 0, result.output
    latest = DetectorRuns(current_home().state_url).latest()
    assert latest is not None and (latest["kind"], latest["build"]) == ("replay", "cand")
    assert latest["traces"] == 1
    assert "detectors last ran" in _alerts_text()
