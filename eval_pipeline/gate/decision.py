"""Gate decisions (docs/DESIGN.md section 4 GateDecision; JSON shape is a **contract**, section 9).

``to_json`` emits the contract keys (``verdict``, ``metrics[...]``, ``budgets``) and a few
additive keys (``tier``, ``blocking``, ``warnings``, per metric ``power``, ``missing_detail``,
item counts); consumers must ignore keys they do not know.
"""

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from eval_pipeline.gate.power import PowerReport

Verdict = Literal["pass", "fail", "inconclusive"]


def number(value: float | None) -> float | None:
    """A JSON-safe float: None for NaN/None, rounded to 6 decimals."""
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), 6)


@dataclass(frozen=True)
class SliceDecision:
    """The comparison on one slice value (``intent=refund``) at a family-corrected level."""

    slice: str
    value: str
    verdict: Verdict
    candidate_mean: float | None
    baseline_mean: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    n_items: int
    tail: float
    reason: str

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "slice": self.slice,
            "value": self.value,
            "verdict": self.verdict,
            "candidate_mean": number(self.candidate_mean),
            "baseline_mean": number(self.baseline_mean),
            "delta": number(self.delta),
            "ci_low": number(self.ci_low),
            "ci_high": number(self.ci_high),
            "n_items": self.n_items,
            "tail": self.tail,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class EvidenceItem:
    """One of the worst items of a metric, with the traces to open."""

    item_id: str
    candidate_mean: float | None
    baseline_mean: float | None
    delta: float | None
    trace_ids: tuple[str, ...]
    slices: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "item_id": self.item_id,
            "candidate_mean": number(self.candidate_mean),
            "baseline_mean": number(self.baseline_mean),
            "delta": number(self.delta),
            "trace_ids": list(self.trace_ids),
            "slices": dict(self.slices),
        }


@dataclass(frozen=True)
class MissingCount:
    """Expected candidate scores that are not there, by cause."""

    expected: int
    unscored: int = 0
    error: int = 0
    null: int = 0
    absent: int = 0

    @property
    def total(self) -> int:
        """All missing scores."""
        return self.unscored + self.error + self.null + self.absent

    def describe(self) -> str:
        """``3 of 450 scores missing (unscored 2, error 1)``."""
        causes = [
            f"{name} {count}"
            for name, count in (
                ("unscored", self.unscored),
                ("error", self.error),
                ("null value", self.null),
                ("no row", self.absent),
            )
            if count
        ]
        return f"{self.total} of {self.expected} scores missing ({', '.join(causes)})"


@dataclass(frozen=True)
class MetricDecision:
    """The verdict on one gated metric."""

    metric_id: str
    verdict: Verdict
    candidate_mean: float | None
    baseline_mean: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    threshold: float
    max_regression: float
    missing: MissingCount
    reason: str
    blocking: bool
    slices: tuple[SliceDecision, ...] = ()
    evidence: tuple[EvidenceItem, ...] = ()
    power: PowerReport | None = None
    candidate_ci: tuple[float | None, float | None] = (None, None)
    n_candidate_items: int = 0
    n_baseline_items: int = 0
    n_paired_items: int = 0
    not_applicable: dict[str, int] = field(default_factory=dict)
    """Candidate rows the metric does not apply to, by cause (neither scored nor missing)."""

    @property
    def not_applicable_total(self) -> int:
        """All ``not_applicable`` rows of the candidate."""
        return sum(self.not_applicable.values())

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (contract keys first)."""
        return {
            "metric_id": self.metric_id,
            "verdict": self.verdict,
            "candidate_mean": number(self.candidate_mean),
            "baseline_mean": number(self.baseline_mean),
            "delta": number(self.delta),
            "ci_low": number(self.ci_low),
            "ci_high": number(self.ci_high),
            "threshold": self.threshold,
            "max_regression": self.max_regression,
            "missing": self.missing.total,
            "reason": self.reason,
            "slices": [s.to_json() for s in self.slices],
            "evidence": [e.to_json() for e in self.evidence],
            "blocking": self.blocking,
            "missing_detail": {
                "expected": self.missing.expected,
                "unscored": self.missing.unscored,
                "error": self.missing.error,
                "null": self.missing.null,
                "absent": self.missing.absent,
            },
            "candidate_ci": [number(self.candidate_ci[0]), number(self.candidate_ci[1])],
            "n_candidate_items": self.n_candidate_items,
            "n_baseline_items": self.n_baseline_items,
            "n_paired_items": self.n_paired_items,
            "power": None if self.power is None else self.power.to_json(),
            "not_applicable": self.not_applicable_total,
            "not_applicable_causes": dict(self.not_applicable),
        }


@dataclass(frozen=True)
class BudgetDecision:
    """The verdict on one budget (``p95_latency_s`` or ``cost_per_task_usd``)."""

    budget: str
    verdict: Verdict
    value: float | None
    ci_low: float | None
    ci_high: float | None
    limit: float
    baseline_value: float | None
    missing: int
    reason: str
    blocking: bool

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "budget": self.budget,
            "verdict": self.verdict,
            "value": number(self.value),
            "ci_low": number(self.ci_low),
            "ci_high": number(self.ci_high),
            "limit": self.limit,
            "baseline_value": number(self.baseline_value),
            "missing": self.missing,
            "reason": self.reason,
            "blocking": self.blocking,
        }


@dataclass(frozen=True)
class GateReport:
    """The gate's answer: overall verdict, per-metric and per-budget decisions.

    ``verdict`` is the statistical verdict (fail if anything failed, else inconclusive if
    anything was, else pass); ``blocking`` applies the risk tier (an inconclusive result
    blocks unless the tier lets it pass with a warning) and sets the exit code.
    """

    verdict: Verdict
    tier: str
    metrics: tuple[MetricDecision, ...]
    budgets: tuple[BudgetDecision, ...]
    warnings: tuple[str, ...] = ()
    first_baseline: bool = False
    """Gated as a first baseline: nothing compared, floors and budgets only."""

    @property
    def blocking(self) -> bool:
        """Whether CI must stop the release."""
        return any(m.blocking for m in self.metrics) or any(b.blocking for b in self.budgets)

    @property
    def exit_code(self) -> int:
        """0 to release, 1 to block (docs/DESIGN.md section 9)."""
        return 1 if self.blocking else 0

    def metric(self, metric_id: str) -> MetricDecision:
        """The decision on one metric."""
        for decision in self.metrics:
            if decision.metric_id == metric_id:
                return decision
        raise KeyError(metric_id)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form in the contract shape."""
        return {
            "verdict": self.verdict,
            "metrics": [m.to_json() for m in self.metrics],
            "budgets": [b.to_json() for b in self.budgets],
            "tier": self.tier,
            "blocking": self.blocking,
            "warnings": list(self.warnings),
            "first_baseline": self.first_baseline,
        }
