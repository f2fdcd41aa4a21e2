"""Build a :class:`GateConfig` from a suite (``eval_pipeline.suites``) and its tier policy.

The suite is duck-typed (attributes or mapping keys): ``suite``, ``risk_tier``,
``runs_per_item``, ``metrics[id, threshold, max_regression]``, ``budgets{p95_latency_s,
cost_per_task_usd}``, ``slices``. A tier policy, when given, is duck-typed too: ``name``,
``inconclusive_passes`` (or ``inconclusive`` in pass/warn/fail), optional ``floor_mode``,
``default_max_regression`` and ``no_regression_metrics``. Without one, the policy comes from
``eval_pipeline.suites.risk`` when that module offers one, else from the built-in table.
"""

import importlib
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from eval_pipeline.gate.rules import (
    TIER_POLICIES,
    Budgets,
    GateConfig,
    MetricRule,
    TierPolicy,
)
from eval_pipeline.gate.rules import (
    tier_policy as builtin_policy,
)

_RISK_LOOKUPS = ("policy_for", "tier_policy", "get_policy", "policy_for_tier")


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _suites_policy(tier: str) -> Any | None:
    """The suites package's policy for ``tier`` (None when it has none for that tier)."""
    try:
        risk = importlib.import_module("eval_pipeline.suites.risk")
    except ImportError:
        return None
    load = getattr(risk, "load_risk_policy", None)
    if callable(load):
        try:
            return load().tier(tier)
        except KeyError:
            return None
    for name in _RISK_LOOKUPS:
        lookup = getattr(risk, name, None)
        if callable(lookup):
            return lookup(tier)
    return None


def _forbidden(policy: Any) -> set[str]:
    """Metrics the tier forbids to regress (``no_regression`` or ``no_regression_metrics``)."""
    for name in ("no_regression_metrics", "no_regression"):
        value = _field(policy, name)
        if isinstance(value, (list, tuple, set, frozenset)):
            return {str(v) for v in value}
    return set()


def _as_policy(policy: Any, tier: str) -> TierPolicy:
    if isinstance(policy, TierPolicy):
        return policy
    known = tier.lower() in TIER_POLICIES
    builtin = builtin_policy(tier if known else "high" if policy is not None else tier)
    if policy is None:
        return builtin
    passes = _field(policy, "inconclusive_passes")
    if passes is None:
        action = str(_field(policy, "inconclusive", "")).lower()
        passes = builtin.inconclusive_passes if not action else action in ("pass", "warn")
    floor_mode = _field(policy, "floor_mode", builtin.floor_mode)
    if floor_mode not in ("point", "interval"):
        raise ValueError(f"tier {tier!r}: floor_mode must be point or interval, got {floor_mode!r}")
    margin = _field(policy, "default_max_regression", builtin.default_max_regression)
    return TierPolicy(
        name=str(_field(policy, "name", tier) or tier),
        inconclusive_passes=bool(passes),
        floor_mode=floor_mode,
        default_max_regression=float(margin if margin is not None else 0.0),
    )


def gate_config_from_suite(
    suite: Any, tier_policy: Any | None = None, **overrides: Any
) -> GateConfig:
    """The gate configuration of a suite.

    Args:
        suite: A ``SuiteConfig`` (or anything with the same fields).
        tier_policy: The risk tier's policy; None looks it up from the suite's ``risk_tier``.
        **overrides: GateConfig fields to set (``n_resamples``, ``seed``, ``alpha``, ...).

    Returns:
        The config; a metric without ``threshold`` has floor 0, one without
        ``max_regression`` takes the tier's default margin.

    Raises:
        ValueError: The suite has no metrics, or a field is out of range.
    """
    tier = str(_field(suite, "risk_tier", "medium") or "medium")
    raw_policy = tier_policy if tier_policy is not None else _suites_policy(tier)
    policy = _as_policy(raw_policy, tier)
    forbidden = _forbidden(raw_policy)
    rules = []
    for metric in _field(suite, "metrics", ()) or ():
        metric_id = _field(metric, "id") or _field(metric, "metric_id")
        if not metric_id:
            raise ValueError(f"suite metric without an id: {metric!r}")
        threshold = _field(metric, "threshold")
        margin = _field(metric, "max_regression")
        rules.append(
            MetricRule(
                metric_id=str(metric_id),
                threshold=float(threshold) if threshold is not None else 0.0,
                max_regression=float(margin)
                if margin is not None
                else policy.default_max_regression,
                no_regression=bool(_field(metric, "no_regression", False))
                or metric_id in forbidden,
            )
        )
    if not rules:
        raise ValueError(f"suite {_field(suite, 'suite', '?')!r} gates no metrics")
    budgets = _field(suite, "budgets")
    latency, cost = _field(budgets, "p95_latency_s"), _field(budgets, "cost_per_task_usd")
    runs = _field(suite, "runs_per_item")
    config = GateConfig(
        metrics=tuple(rules),
        budgets=Budgets(
            p95_latency_s=float(latency) if latency is not None else None,
            cost_per_task_usd=float(cost) if cost is not None else None,
        ),
        slices=tuple(str(s) for s in (_field(suite, "slices", ()) or ())),
        tier=policy,
        runs_per_item=int(runs) if runs is not None else None,
    )
    return replace(config, **overrides) if overrides else config
