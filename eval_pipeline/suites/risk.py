"""Risk-tier policy: per tier, what a suite must gate and how strict the gate is.

The default policy ships as ``eval_pipeline/suites/risk_tiers.yaml``; ``load_risk_policy(path)``
reads another one, validated with errors that name file, line and field.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval_pipeline.package_data import package_path
from eval_pipeline.suites.errors import ConfigError, IssueList
from eval_pipeline.suites.metric_ids import known_metric_ids
from eval_pipeline.suites.yaml_source import YamlSourceError, load_yaml

DEFAULT_POLICY = package_path("eval_pipeline.suites", "risk_tiers.yaml")
TIER_ORDER = ("low", "medium", "high", "critical")

Fraction = Annotated[float, Field(strict=True, ge=0.0, le=1.0)]


class RiskPolicyError(ConfigError):
    """The risk-tier policy file is invalid."""


class TierPolicy(BaseModel):
    """The gate policy of one risk tier."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = ""
    description: str = ""
    required_metrics: tuple[str, ...]
    default_thresholds: dict[str, Fraction] = Field(default_factory=dict)
    default_max_regression: Fraction
    no_regression: tuple[str, ...] = ()
    inconclusive_passes: bool
    floor_mode: Literal["point", "interval"] = "point"
    first_baseline: bool = False
    unknown_judge: bool = False
    judge_false_pass_ceiling: Fraction
    production_sampling_rate: Fraction
    flagged_sampling_rates: dict[str, Fraction] = Field(default_factory=dict)
    flagged_sampling_rate: Fraction = 1.0
    thumbs_down_sampling_rate: Fraction = 1.0

    def inclusion_rate_for_flag(self, kind: str) -> float:
        """The inclusion probability a flag of ``kind`` (detector id without version) asks for."""
        return self.flagged_sampling_rates.get(kind, self.flagged_sampling_rate)

    def threshold_for(self, metric_id: str) -> float | None:
        """The tier's default floor for ``metric_id`` (None when the tier sets none)."""
        return self.default_thresholds.get(metric_id)

    def max_regression_for(self, metric_id: str) -> float:
        """The default margin for ``metric_id``: 0 for no-regression metrics."""
        return 0.0 if metric_id in self.no_regression else self.default_max_regression

    def may_regress(self, metric_id: str) -> bool:
        """False for metrics the tier forbids to regress at all."""
        return metric_id not in self.no_regression


class RiskPolicy(BaseModel):
    """Every risk tier, by name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int | str
    tiers: dict[str, TierPolicy]
    source: str = ""

    @property
    def tier_names(self) -> tuple[str, ...]:
        """Tier names, least strict first where the standard names are used."""
        ordered = [t for t in TIER_ORDER if t in self.tiers]
        return (*ordered, *sorted(set(self.tiers) - set(ordered)))

    def tier(self, name: str) -> TierPolicy:
        """The policy of tier ``name``; ``KeyError`` listing the known tiers otherwise."""
        try:
            return self.tiers[name]
        except KeyError:
            raise KeyError(
                f"unknown risk tier {name!r}; known: {', '.join(self.tier_names)}"
            ) from None


def _check_metric_names(issues: IssueList, tiers: Mapping[str, TierPolicy]) -> None:
    known = known_metric_ids()
    for name, tier in tiers.items():
        named: list[tuple[str, str | int, str]] = [
            ("required_metrics", i, m) for i, m in enumerate(tier.required_metrics)
        ]
        named += [("no_regression", i, m) for i, m in enumerate(tier.no_regression)]
        named += [("default_thresholds", m, m) for m in tier.default_thresholds]
        for key, where, metric in named:
            if metric not in known:
                issues.add(("tiers", name, key, where), f"unknown metric id {metric!r}")


def load_risk_policy(path: Path | None = None) -> RiskPolicy:
    """Read and validate a risk-tier policy (the shipped default when ``path`` is None)."""
    source_path = Path(path) if path is not None else DEFAULT_POLICY
    try:
        source = load_yaml(source_path)
    except YamlSourceError as exc:
        raise RiskPolicyError.from_yaml(exc) from exc
    issues = IssueList(source)
    if not isinstance(source.data, dict):
        issues.add((), "expected a mapping with 'version' and 'tiers'")
        issues.raise_if_any(RiskPolicyError)
    data = dict(source.data)
    tiers = data.get("tiers")
    if isinstance(tiers, dict):
        data["tiers"] = {
            name: {**body, "name": name} if isinstance(body, dict) else body
            for name, body in tiers.items()
        }
    try:
        policy = RiskPolicy.model_validate({**data, "source": str(source_path)})
    except ValidationError as exc:
        issues.add_pydantic([dict(e) for e in exc.errors()])
        issues.raise_if_any(RiskPolicyError)
        raise
    if not policy.tiers:
        issues.add(("tiers",), "at least one tier is required")
    _check_metric_names(issues, policy.tiers)
    issues.raise_if_any(RiskPolicyError)
    return policy
