"""Stage 5: the gate decision of a build against its baseline, with one check per gated id."""

import json
from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.evaluation.calibration_stage import calibration_block
from eval_pipeline.evaluation.gate_config import suite_gate_config
from eval_pipeline.evaluation.planning import BUDGET_IDS
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.evaluation.suite_parts import judged_metrics
from eval_pipeline.gate.decision import GateReport
from eval_pipeline.gate.engine import evaluate_gate
from eval_pipeline.gate.reports import render_markdown
from eval_pipeline.scoring.store import ScoreStore


@dataclass(frozen=True)
class CheckOutcome:
    """One gate check: passed or not, why, and its evidence."""

    passed: bool
    reason: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GateOutcome:
    """The gate report of a build plus the per-check view the asset checks need."""

    build: str
    baseline: str | None
    report: GateReport
    suite_metric_ids: tuple[str, ...]
    judge_block: str | None

    @property
    def verdict(self) -> str:
        """Overall statistical verdict (judge calibration already applied)."""
        return str(self.report.verdict)

    @property
    def passed(self) -> bool:
        """Whether the release may go ahead under the suite's risk tier."""
        return not self.report.blocking

    def check(self, gated_id: str) -> CheckOutcome:
        """The check for a metric id or a budget id (``budget_<name>``)."""
        if gated_id in BUDGET_IDS:
            name = gated_id.removeprefix("budget_")
            for budget in self.report.budgets:
                if budget.budget == name:
                    return CheckOutcome(
                        not budget.blocking, f"{budget.verdict}: {budget.reason}", budget.to_json()
                    )
            return CheckOutcome(True, f"{name} is not budgeted by this build's suite")
        if gated_id not in self.suite_metric_ids:
            return CheckOutcome(True, f"{gated_id} is not gated by this build's suite")
        decision = self.report.metric(gated_id)
        return CheckOutcome(
            not decision.blocking, f"{decision.verdict}: {decision.reason}", decision.to_json()
        )

    def metadata(self) -> dict[str, Any]:
        """Metadata for the ``gate_decision`` asset (verdict, baseline, Markdown report)."""
        failing = [m.metric_id for m in self.report.metrics if m.blocking]
        failing += [f"budget_{b.budget}" for b in self.report.budgets if b.blocking]
        return {
            "build": self.build,
            "baseline": self.baseline,
            "verdict": self.verdict,
            "release": "go" if self.passed else "no-go",
            "failing": failing,
            "judge_calibration": self.judge_block or "ok",
            "report_md": render_markdown(self.report),
        }

    def to_json(self) -> dict[str, Any]:
        """The gate's JSON report plus build, baseline and calibration status."""
        return {
            **self.report.to_json(),
            "verdict": self.verdict,
            "build": self.build,
            "baseline": self.baseline,
            "judge_calibration": self.judge_block or "ok",
        }


def untrusted_judge_metrics(stage: Stage, judge_block: str | None) -> dict[str, str]:
    """The suite's judge-based metrics, with why, when the build's judge may not pass them."""
    if judge_block is None:
        return {}
    return {m: judge_block for m in judged_metrics(stage.suite)}


def first_baseline(stage: Stage, declared: bool) -> bool:
    """Whether the build is gated as a first baseline (nothing compared, floors and budgets).

    Declared by the caller (``gate --no-baseline``), or by the registry: the suite's pinned
    baseline gated on its own has nothing before it. Any other build without a baseline is
    gated against none and fails: a missing baseline is missing evidence.
    """
    if declared:
        return True
    return stage.baseline is None and stage.registry.baseline_for(stage.suite.suite) == stage.build


def decide_gate(stage: Stage, *, no_baseline: bool = False, **overrides: Any) -> GateOutcome:
    """Compare the build's scores with its baseline's and store the report in the home.

    When the judge that scored the build is over its tier's false-pass ceiling (or was never
    calibrated), its metrics are untrusted: they can fail but not pass (see ``GateConfig``).
    ``no_baseline`` declares the build a first baseline (see ``first_baseline``); ``overrides``
    are GateConfig fields (``seed``, ``n_resamples``) a caller may set.
    """
    judge_block = calibration_block(stage)
    first = first_baseline(stage, no_baseline)
    config = suite_gate_config(
        stage.suite,
        runs_per_item=stage.runs_per_item,
        untrusted_metrics=untrusted_judge_metrics(stage, judge_block),
        first_baseline=first,
        **overrides,
    )
    store = ScoreStore(stage.home.store)
    baseline = None if first else stage.baseline
    baseline_frame = store.read_frame(baseline) if baseline else None
    report = evaluate_gate(config, store.read_frame(stage.build), baseline_frame)
    outcome = GateOutcome(
        build=stage.build,
        baseline=baseline,
        report=report,
        suite_metric_ids=stage.suite.metric_ids,
        judge_block=judge_block,
    )
    target = stage.home.store / "gates" / f"{stage.build}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(outcome.to_json(), indent=2))
    return outcome
