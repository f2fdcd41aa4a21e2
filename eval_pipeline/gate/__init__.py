"""Gate: clustered bootstrap statistics, rules, verdicts and reports. Pure: never imports dagster.

Entry point: :func:`evaluate_gate` (``config``, candidate and baseline long score frames) ->
:class:`GateReport`; a suite's config comes from ``evaluation.gate_config.suite_gate_config``.
docs/DESIGN.md section 8 is the contract.
"""

from eval_pipeline.gate.decision import (
    BudgetDecision,
    EvidenceItem,
    GateReport,
    MetricDecision,
    MissingCount,
    SliceDecision,
)
from eval_pipeline.gate.engine import evaluate_gate
from eval_pipeline.gate.frame import ScoreFrameError, normalise_scores
from eval_pipeline.gate.reports import (
    RENDERERS,
    render_json,
    render_junit,
    render_markdown,
    render_text,
)
from eval_pipeline.gate.rules import Budgets, GateConfig, MetricRule, TierPolicy

__all__ = [
    "RENDERERS",
    "BudgetDecision",
    "Budgets",
    "EvidenceItem",
    "GateConfig",
    "GateReport",
    "MetricDecision",
    "MetricRule",
    "MissingCount",
    "ScoreFrameError",
    "SliceDecision",
    "TierPolicy",
    "evaluate_gate",
    "normalise_scores",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_text",
]
