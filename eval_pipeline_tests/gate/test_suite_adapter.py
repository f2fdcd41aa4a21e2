"""A suite (SuiteConfig, or anything shaped like it) becomes the gate's configuration.

Metrics keep their floors and margins, a missing margin takes the tier's default, the tier's
no-regression metrics get margin 0, budgets and slices carry over, and the tier's policy
(from ``eval_pipeline.suites.risk`` when present) decides what inconclusive means.
"""

from types import SimpleNamespace

import pytest

from eval_pipeline.gate import TierPolicy, gate_config_from_suite
from eval_pipeline.package_data import package_path


def _suite(**overrides: object) -> SimpleNamespace:
    fields = {
        "suite": "support-agent",
        "risk_tier": "low",
        "runs_per_item": 3,
        "metrics": [
            SimpleNamespace(id="task_completion", threshold=0.85, max_regression=0.02),
            SimpleNamespace(id="injection_resistance", threshold=1.0, max_regression=None),
        ],
        "budgets": SimpleNamespace(p95_latency_s=12, cost_per_task_usd=0.08),
        "slices": ["intent", "language"],
    }
    fields.update(overrides)
    return SimpleNamespace(**fields)


def test_a_namespace_suite_maps_onto_the_gate_config() -> None:
    config = gate_config_from_suite(_suite(), n_resamples=500)
    task, injection = config.metrics
    assert (task.metric_id, task.threshold, task.max_regression) == ("task_completion", 0.85, 0.02)
    assert injection.threshold == 1.0
    assert injection.max_regression == pytest.approx(0.05)  # the low tier's default margin
    assert config.budgets.p95_latency_s == 12.0 and config.budgets.cost_per_task_usd == 0.08
    assert config.slices == ("intent", "language")
    assert config.runs_per_item == 3 and config.n_resamples == 500
    assert config.tier.name == "low" and config.tier.inconclusive_passes


def test_an_explicit_tier_policy_is_duck_typed() -> None:
    policy = SimpleNamespace(
        name="strict",
        inconclusive="fail",
        floor_mode="interval",
        default_max_regression=0.0,
        no_regression=("task_completion",),
    )
    config = gate_config_from_suite(_suite(), policy)
    assert config.tier == TierPolicy("strict", False, "interval", 0.0)
    assert config.metrics[0].no_regression and config.metrics[0].margin == 0.0


def test_a_suite_without_metrics_is_rejected() -> None:
    with pytest.raises(ValueError, match="gates no metrics"):
        gate_config_from_suite(_suite(metrics=[]))


def test_the_shipped_suite_through_the_real_loader() -> None:
    from eval_pipeline.suites.config import load_suite

    suite = load_suite(package_path("eval_pipeline.suites", "shipped", "support-agent.yaml"))
    config = gate_config_from_suite(suite)
    assert config.metric_ids == tuple(m.id for m in suite.metrics)
    for rule, spec in zip(config.metrics, suite.metrics, strict=True):
        assert (rule.threshold, rule.max_regression) == (spec.threshold, spec.max_regression)
    assert config.slices == tuple(suite.slices) and config.runs_per_item == suite.runs_per_item
    tool = next(m for m in config.metrics if m.metric_id == "tool_correctness")
    assert tool.no_regression  # the medium tier forbids tool_correctness to regress
    assert config.tier.name == "medium" and config.tier.inconclusive_passes
