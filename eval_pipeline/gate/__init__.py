"""Gate: clustered bootstrap statistics, rules, verdicts and reports. Pure: never imports dagster.

Entry point: :func:`evaluate_gate` (``config``, candidate and baseline long score frames) ->
:class:`GateReport`; build the config from a suite with :func:`gate_config_from_suite`.
DESIGN.md section 8 is the contract.
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
from eval_pipeline.gate.rules import (
    TIER_POLICIES,
    Budgets,
    GateConfig,
    MetricRule,
    TierPolicy,
    tier_policy,
)
from eval_pipeline.gate.suite_adapter import gate_config_from_suite

__all__ = [
    "RENDERERS",
    "TIER_POLICIES",
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
    "gate_config_from_suite",
    "normalise_scores",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_text",
    "tier_policy",
]
