"""Stage 5: the gate decision of a build against its baseline, with one check per gated id.

The two ways to gate, a stored build (``decide_gate``) and score files (``gate_score_frames``),
share the configuration (``suite_gate_config``), the trust in datasets and judge
(``evaluation.trust``) and the outcome's JSON, so exporting a build's scores and gating the
files gives the store's verdict.
"""

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from eval_pipeline.evaluation.gate_config import suite_gate_config
from eval_pipeline.evaluation.planning import BUDGET_IDS
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.evaluation.trust import Trust, frame_judge, gate_trust
from eval_pipeline.gate.decision import GateReport
from eval_pipeline.gate.engine import evaluate_gate
from eval_pipeline.gate.reports import render_markdown
from eval_pipeline.home import Home
from eval_pipeline.report.stored import gate_report_path
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.suites.config import SuiteConfig


@dataclass(frozen=True)
class CheckOutcome:
    """One gate check: passed or not, why, and its evidence."""

    passed: bool
    reason: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GateOutcome:
    """The gate report of a build plus the per-check view the asset checks need.

    ``build`` and ``baseline`` name the sources: build ids, or score files' paths.
    """

    build: str
    baseline: str | None
    report: GateReport
    suite_metric_ids: tuple[str, ...]
    trust: Trust = field(default_factory=Trust)

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
            "judge_calibration": self.trust.judge_status,
            "dataset_validation": self.trust.dataset_status,
            "report_md": render_markdown(self.report),
        }

    def to_json(self) -> dict[str, Any]:
        """The gate's JSON report plus build, baseline and calibration status."""
        return {
            **self.report.to_json(),
            "verdict": self.verdict,
            "build": self.build,
            "baseline": self.baseline,
            "judge_calibration": self.trust.judge_status,
            "dataset_validation": self.trust.dataset_status,
        }


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
    calibrated), its metrics are untrusted: they can fail but not pass; a pinned dataset that
    fails validation fails every metric (see ``evaluation.trust``). ``no_baseline`` declares
    the build a first baseline (see ``first_baseline``); ``overrides`` are GateConfig fields
    (``seed``, ``n_resamples``) a caller may set.
    """
    trust = gate_trust(stage.home, stage.suite, stage.registry.scored_with().get(stage.build))
    first = first_baseline(stage, no_baseline)
    config = suite_gate_config(
        stage.suite,
        runs_per_item=stage.runs_per_item,
        first_baseline=first,
        **trust.gate_settings(),
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
        trust=trust,
    )
    target = gate_report_path(stage.home, stage.build)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(outcome.to_json(), indent=2))
    return outcome


def gate_score_frames(
    home: Home,
    suite: SuiteConfig,
    candidate: pd.DataFrame,
    baseline: pd.DataFrame | None,
    *,
    sources: tuple[str, str | None],
    no_baseline: bool = False,
    **overrides: Any,
) -> GateOutcome:
    """Gate score tables (files) under ``suite``: the same rules and trust as ``decide_gate``.

    ``sources`` name the candidate's and baseline's files (they stand where build ids would).
    The judge is the one the candidate's rows name (``frame_judge``).
    """
    trust = gate_trust(home, suite, frame_judge(suite, candidate, state_url=home.state_url))
    config = suite_gate_config(
        suite, first_baseline=no_baseline, **trust.gate_settings(), **overrides
    )
    names = (sources[0], sources[1] or "baseline scores")
    report = evaluate_gate(config, candidate, baseline, sources=names)
    return GateOutcome(
        build=sources[0],
        baseline=sources[1],
        report=report,
        suite_metric_ids=suite.metric_ids,
        trust=trust,
    )
