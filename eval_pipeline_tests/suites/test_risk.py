"""The risk-tier policy states how strict each tier is.

The risk-tier policy: every tier states its required metrics, defaults, no-regression
metrics, inconclusive handling, judge false-pass ceiling and sampling rate; stricter tiers are
stricter; a broken policy file is rejected naming its line and field.
"""

import itertools
from pathlib import Path

import pytest

from eval_pipeline.suites.risk import DEFAULT_POLICY, RiskPolicyError, load_risk_policy


def test_default_policy_has_four_tiers_ordered_by_strictness() -> None:
    policy = load_risk_policy()
    assert policy.tier_names == ("low", "medium", "high", "critical")
    tiers = [policy.tier(name) for name in policy.tier_names]
    ceilings = [t.judge_false_pass_ceiling for t in tiers]
    rates = [t.production_sampling_rate for t in tiers]
    assert ceilings == sorted(ceilings, reverse=True)
    assert rates == sorted(rates)
    for looser, stricter in itertools.pairwise(tiers):
        assert set(looser.required_metrics) <= set(stricter.required_metrics)
        assert set(looser.no_regression) <= set(stricter.no_regression)
    assert policy.tier("low").inconclusive_passes
    assert not policy.tier("critical").inconclusive_passes


def test_no_regression_metrics_default_to_a_zero_margin() -> None:
    high = load_risk_policy().tier("high")
    assert high.max_regression_for("argument_correctness") == 0.0
    assert high.max_regression_for("task_completion") == high.default_max_regression > 0
    assert not high.may_regress("injection_resistance")


def test_unknown_tier_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known: low, medium, high, critical"):
        load_risk_policy().tier("severe")


def _broken(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    text = DEFAULT_POLICY.read_text()
    assert old in text
    text = text.replace(old, new, 1)
    path = tmp_path / "tiers.yaml"
    path.write_text(text)
    return path, next(i for i, row in enumerate(text.splitlines(), 1) if new in row)


def test_rate_out_of_range_names_line_and_field(tmp_path: Path) -> None:
    path, line = _broken(tmp_path, "production_sampling_rate: 0.05", "production_sampling_rate: 5")
    with pytest.raises(RiskPolicyError, match=rf"{path}:{line}: tiers.medium.production_sampling"):
        load_risk_policy(path)


def test_unknown_metric_in_a_tier_names_line_and_field(tmp_path: Path) -> None:
    path, line = _broken(tmp_path, "required_metrics: []", "required_metrics: [task_complete]")
    with pytest.raises(
        RiskPolicyError,
        match=rf"{path}:{line}: tiers.low.required_metrics\[0\]: unknown metric id 'task_complete'",
    ):
        load_risk_policy(path)
