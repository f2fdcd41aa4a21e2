"""The builds of a suite and their gate reports, read from the home for ``compare.history``.

A build belongs to a suite when its registered suite reference resolves to a suite of that
name (a shipped name or a YAML path); builds are taken in the order they were registered.
Unregistered builds (gated from score files) have no suite and are not in any history. A
registered build whose suite file is gone is left out (its suite cannot be named).
"""

from collections.abc import Sequence
from typing import Any

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.compare.history import HistoryPoint, metric_history
from eval_pipeline.home import Home
from eval_pipeline.report.stored import GateReportNotFoundError, load_gate_report
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.suites.config import SuiteError, load_suite
from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite


def suite_builds(home: Home, suite: str) -> list[str]:
    """The registered builds of suite ``suite`` (its name), oldest registration first."""
    names: dict[str, str | None] = {}
    builds = []
    for record in sorted(BuildRegistry(home.state_url).all(), key=lambda r: r.registered_at):
        if record.suite not in names:
            try:
                names[record.suite] = load_suite(locate_suite(record.suite)).suite
            except (SuiteNotFoundError, SuiteError):
                names[record.suite] = None
        if names[record.suite] == suite:
            builds.append(record.build)
    return builds


def suite_history(
    home: Home, suite: str, metric_ids: Sequence[str]
) -> dict[str, list[HistoryPoint]]:
    """Metric -> one point per build of the suite with scores of it (``metric_history``)."""
    store = ScoreStore(home.store)
    builds = suite_builds(home, suite)
    frames = [(b, store.read_frame(b)) for b in builds]
    reports: dict[str, dict[str, Any]] = {}
    for build in builds:
        try:
            reports[build] = load_gate_report(home, build)
        except GateReportNotFoundError:
            continue  # never gated: the point has no verdict
    pinned = BuildRegistry(home.state_url).baseline_for(suite)
    return {m: metric_history(frames, m, pinned=pinned, gate_reports=reports) for m in metric_ids}
