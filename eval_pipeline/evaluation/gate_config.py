"""A suite's gate configuration: its metrics, budgets and slices under its risk tier's policy.

The gate (``eval_pipeline.gate``) knows nothing of suites or tier files: it takes a
``GateConfig``. This module is the one translation from a validated ``SuiteConfig`` and the
risk-tier policy file (``suites/risk_tiers.yaml``, the only source of tier policies) into it.
Every path that gates (CLI on builds or on score files, defects, demo, assets) calls
``suite_gate_config``, so the same suite is gated the same way everywhere.
"""

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from eval_pipeline.evaluation.gate_direction import lower_is_better
from eval_pipeline.gate.rules import Budgets, GateConfig, MetricRule, TierPolicy
from eval_pipeline.suites.config import SuiteConfig
from eval_pipeline.suites.risk import RiskPolicy, load_risk_policy
from eval_pipeline.suites.risk import TierPolicy as RiskTier


def gate_tier(name: str, policy: RiskPolicy | None = None) -> TierPolicy:
    """The gate's view of risk tier ``name`` from the policy file.

    Raises:
        KeyError: the tier is unknown (the message lists the known ones).
    """
    tier: RiskTier = (policy or load_risk_policy()).tier(name)
    return TierPolicy(
        name=name,
        inconclusive_passes=tier.inconclusive_passes,
        floor_mode=tier.floor_mode,
        default_max_regression=float(tier.default_max_regression),
        first_baseline_allowed=tier.first_baseline,
        unknown_judge_allowed=tier.unknown_judge,
    )


def suite_gate_config(
    suite: SuiteConfig,
    *,
    runs_per_item: int | None = None,
    untrusted_metrics: Mapping[str, str] | None = None,
    policy: RiskPolicy | None = None,
    **overrides: Any,
) -> GateConfig:
    """The gate configuration of ``suite``.

    Args:
        suite: A validated suite (every metric carries its floor and margin).
        runs_per_item: The runs per item actually asked for (the suite's when None).
        untrusted_metrics: Metric id -> why its judge may not pass it (see ``GateConfig``).
        policy: The risk-tier policy (the shipped file when None).
        **overrides: GateConfig fields to set (``n_resamples``, ``seed``, ...).
    """
    policy = policy or load_risk_policy()
    forbidden = set(policy.tier(suite.risk_tier).no_regression)
    config = GateConfig(
        metrics=tuple(
            MetricRule(
                metric_id=metric.id,
                # A lower-is-better metric's threshold is a ceiling; it is gated on 1 - value.
                threshold=(
                    1.0 - float(metric.threshold)
                    if lower_is_better(metric.id)
                    else float(metric.threshold)
                ),
                max_regression=float(metric.max_regression),
                no_regression=metric.id in forbidden,
            )
            for metric in suite.metrics
        ),
        budgets=Budgets(
            p95_latency_s=suite.budgets.p95_latency_s,
            cost_per_task_usd=suite.budgets.cost_per_task_usd,
        ),
        slices=tuple(suite.slices),
        tier=gate_tier(suite.risk_tier, policy),
        runs_per_item=runs_per_item or suite.runs_per_item,
        untrusted_metrics=dict(untrusted_metrics or {}),
    )
    return replace(config, **overrides) if overrides else config
