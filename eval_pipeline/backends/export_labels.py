"""What an exported evaluation is labelled with, so people can filter on it in the back end.

A score row's own status (``scored``) says nothing a reviewer filters on. Exported, a scored
row is labelled ``pass`` when its value holds its metric's floor (the suite's ``threshold``)
and ``fail`` below it; a row without a value keeps its status (``unscored``, ``error``,
``not_applicable``). Where the build was gated (a stored gate report), the gate's verdict
goes with it: ``go`` or ``no-go`` for the release, and the metric's own verdict
(``pass`` / ``fail`` / ``inconclusive``).

The floors come from the gate report when there is one (the floors the gate applied), else
from the build's suite; a metric with no known floor is labelled against ``DEFAULT_FLOOR``,
and the floor used is exported beside the label so it can be read, not guessed.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import Home
from eval_pipeline.report.stored import GateReportNotFoundError, load_gate_report
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.suites.config import load_suite
from eval_pipeline.suites.locate import locate_suite

DEFAULT_FLOOR = 0.5
"""The floor of a metric the build's suite does not name (an imported build's, say)."""
GATE_NAME = "release_gate"
"""Name of the run-level evaluation carrying the gate's release verdict (``go``/``no-go``)."""
GATE_METADATA_KEY = "eval_pipeline_gate"
"""Metadata key marking the release-gate evaluation (importers skip it: it is not a score)."""
PASS, FAIL = "pass", "fail"


@dataclass(frozen=True)
class GateVerdict:
    """A gated build's release verdict and each gated metric's verdict."""

    release: str
    baseline: str | None
    failing: tuple[str, ...]
    metrics: Mapping[str, str] = field(default_factory=dict)

    @property
    def explanation(self) -> str:
        """One line: what blocked the release, or that nothing did."""
        if not self.failing:
            return f"go: nothing blocks the release (baseline {self.baseline or 'none'})"
        return f"no-go: blocked by {', '.join(self.failing)} (baseline {self.baseline or 'none'})"


@dataclass(frozen=True)
class ExportLabels:
    """Floors per metric and the build's gate verdict (None when it was never gated)."""

    floors: Mapping[str, float] = field(default_factory=dict)
    gate: GateVerdict | None = None

    def floor(self, metric_id: str) -> float:
        """The floor a scored row of ``metric_id`` is labelled against."""
        return self.floors.get(metric_id, DEFAULT_FLOOR)

    def label(self, score: Score) -> str:
        """``pass`` / ``fail`` for a scored row, the status otherwise."""
        if score.status != ScoreStatus.SCORED or score.value is None:
            return score.status
        return PASS if score.value >= self.floor(score.metric_id) else FAIL

    def metadata(self, score: Score) -> dict[str, Any]:
        """The label's context: the floor used and, when gated, the gate's verdicts."""
        out: dict[str, Any] = {"label": self.label(score), "floor": self.floor(score.metric_id)}
        if self.gate is not None:
            out["gate_release"] = self.gate.release
            verdict = self.gate.metrics.get(score.metric_id)
            if verdict is not None:
                out["gate_verdict"] = verdict
        return out


def _suite_floors(home: Home, build: str) -> dict[str, float]:
    record = BuildRegistry(home.state_url).get(build)
    if record is None:
        return {}
    try:
        suite = load_suite(locate_suite(record.suite))
    except (LookupError, ValueError, OSError):
        return {}
    return {m.id: float(m.threshold) for m in suite.metrics}


def export_labels(home: Home, build: str) -> ExportLabels:
    """The labels of ``build``'s exported evaluations (its gate report, else its suite)."""
    try:
        report = load_gate_report(home, build)
    except GateReportNotFoundError:
        return ExportLabels(floors=_suite_floors(home, build))
    metrics = report.get("metrics") or []
    failing = [str(m["metric_id"]) for m in metrics if m.get("blocking")]
    failing += [f"budget_{b['budget']}" for b in report.get("budgets") or [] if b.get("blocking")]
    gate = GateVerdict(
        release="no-go" if report.get("blocking") else "go",
        baseline=report.get("baseline"),
        failing=tuple(failing),
        metrics={str(m["metric_id"]): str(m["verdict"]) for m in metrics},
    )
    floors = {str(m["metric_id"]): float(m["threshold"]) for m in metrics}
    return ExportLabels(floors={**_suite_floors(home, build), **floors}, gate=gate)
