"""Gate rules: what each metric must hold, the budgets, the risk tier's strictness.

These are the gate's own small, frozen types. A suite and its risk tier (the tier policy file,
``suites/risk_tiers.yaml``, is the only source of tier policies) are translated into them once,
at the edge, by ``evaluation.gate_config.suite_gate_config``; the gate never reads suites.
"""

from dataclasses import dataclass, field
from typing import Literal

FloorMode = Literal["point", "interval"]


@dataclass(frozen=True)
class MetricRule:
    """One gated metric.

    Attributes:
        metric_id: The metric's id as it appears in the scores (``tool_correctness``).
        threshold: Absolute floor on the candidate's mean, in [0, 1].
        max_regression: Margin m: the largest drop against the baseline that is tolerated
            (inclusive). The gate passes only when the interval on delta shows delta >= -m.
        no_regression: The tier forbids any regression on this metric: the margin becomes 0,
            so any regression the interval shows fails. An inconclusive result (no regression
            shown, none excluded) follows the tier like any other: a lenient tier passes it
            with a warning, a strict one blocks (the reference's "any plausible regression
            fails"). Blocking it everywhere would block every release of a stochastic agent,
            since a zero margin cannot be resolved at any suite size.
    """

    metric_id: str
    threshold: float
    max_regression: float = 0.0
    no_regression: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"{self.metric_id}: threshold must be in [0, 1], got {self.threshold}")
        if not 0.0 <= self.max_regression <= 1.0:
            raise ValueError(
                f"{self.metric_id}: max_regression must be in [0, 1], got {self.max_regression}"
            )

    @property
    def margin(self) -> float:
        """The effective margin m (0 when the tier forbids any regression)."""
        return 0.0 if self.no_regression else self.max_regression


@dataclass(frozen=True)
class Budgets:
    """Operational budgets of a task (a run); None means not budgeted."""

    p95_latency_s: float | None = None
    cost_per_task_usd: float | None = None


@dataclass(frozen=True)
class TierPolicy:
    """How strict the gate is for a risk tier.

    Attributes:
        name: Tier name (``low``, ``medium``, ``high``, ``critical``).
        inconclusive_passes: An inconclusive metric passes with a warning (True) or blocks
            (False: the reference's behaviour, where any plausible regression fails).
        floor_mode: ``point``: the floor holds when the candidate's mean reaches the
            threshold. ``interval``: the floor must be shown (lower bound >= threshold);
            a floor inside the interval is inconclusive. Budgets follow the same mode.
        default_max_regression: Margin for suite metrics that do not state one.
        first_baseline_allowed: A run declared a first baseline (nothing to compare with) may
            pass on floors and budgets alone; False: it fails every metric.
        unknown_judge_allowed: A judge-based metric whose judge is unknown (calibration cannot
            be applied) is gated with a warning; False: it fails.
    """

    name: str
    inconclusive_passes: bool
    floor_mode: FloorMode = "point"
    default_max_regression: float = 0.0
    first_baseline_allowed: bool = False
    unknown_judge_allowed: bool = False


@dataclass(frozen=True)
class GateConfig:
    """Everything the gate needs besides the scores.

    Attributes:
        metrics: The gated metrics; a metric listed here with no scores fails.
        budgets: Latency and cost budgets.
        slices: Slice columns (``intent``, ``language``, ``tool``) for per-slice verdicts.
        tier: The risk tier's policy.
        alpha: Two-sided error level of the overall interval: a false pass (at the margin)
            and a false alarm (A/A) each happen at most alpha/2 of the time.
        n_resamples: Bootstrap resamples.
        seed: Seed of the bootstrap; the same inputs and seed give the same report.
        min_items: Fewer items than this in a comparison is too small for an interval:
            the verdict is inconclusive (unless scores are missing or the floor is broken).
        slice_alpha_share: Share of the false-alarm budget (alpha/2) given to the slice
            family when slices are configured; the overall upper bound keeps the rest, so
            checking more slices never raises the chance of failing an A/A comparison.
        evidence_items: How many worst items to list per metric.
        power: Target power of the power report.
        runs_per_item: Runs per item the suite asks for (for the power report), if known.
        untrusted_metrics: Metric id -> why its scorer is not trusted to pass anything (its
            judge's false-pass rate is above the tier's ceiling). Such a metric can still fail
            (a lenient judge that fails a candidate is evidence), but a pass becomes
            inconclusive, which the tier then passes with a warning or blocks.
        first_baseline: The run is declared a first baseline: it is gated without a baseline,
            on floors and budgets only (where the tier allows it). Without this declaration a
            metric with no baseline scores fails: a missing baseline is missing evidence.
        unknown_judge_metrics: Judge-based metrics whose judge is unknown (a rules-only suite
            gating score files): gated with the warning "judge unknown: calibration not
            applied", or failed where the tier forbids unknown judges.
        refused_metrics: Metric id -> why nothing it shows can be trusted (the dataset it was
            measured on failed validation): the metric fails with that reason.
    """

    metrics: tuple[MetricRule, ...]
    budgets: Budgets = field(default_factory=Budgets)
    slices: tuple[str, ...] = ()
    tier: TierPolicy = field(kw_only=True)
    alpha: float = 0.05
    n_resamples: int = 10_000
    seed: int = 20_260_101
    min_items: int = 5
    slice_alpha_share: float = 0.5
    evidence_items: int = 5
    power: float = 0.8
    runs_per_item: int | None = None
    untrusted_metrics: dict[str, str] = field(default_factory=dict)
    first_baseline: bool = False
    unknown_judge_metrics: tuple[str, ...] = ()
    refused_metrics: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")
        if self.n_resamples < 100:
            raise ValueError(f"n_resamples must be at least 100, got {self.n_resamples}")
        if not 0.0 < self.slice_alpha_share < 1.0:
            raise ValueError(f"slice_alpha_share must be in (0, 1), got {self.slice_alpha_share}")
        ids = [rule.metric_id for rule in self.metrics]
        if len(set(ids)) != len(ids):
            raise ValueError(f"metric ids must be unique: {ids}")

    @property
    def metric_ids(self) -> tuple[str, ...]:
        """The gated metric ids, in suite order."""
        return tuple(rule.metric_id for rule in self.metrics)
