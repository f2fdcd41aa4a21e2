"""One metric's decision: the statistics, then what the evidence allows, then the tier.

The order is the contract's (docs/DESIGN.md section 8): missing candidate scores fail; a missing
baseline, a baseline scored by another scorer version, or a refused input (an invalid
dataset) fails; then the floor and the comparison decide; a judge over its false-pass ceiling
cannot pass; an unknown judge passes with a warning or fails, as the tier says; and the tier
turns an inconclusive verdict into a warning or a block.
"""

from dataclasses import dataclass

import numpy as np

from eval_pipeline.gate.bootstrap import CellDraws
from eval_pipeline.gate.decision import (
    EvidenceItem,
    MetricDecision,
    MissingCount,
    SliceDecision,
    Verdict,
)
from eval_pipeline.gate.items import ItemStats
from eval_pipeline.gate.power import PowerReport, power_report
from eval_pipeline.gate.rules import GateConfig, MetricRule
from eval_pipeline.gate.slices import entry
from eval_pipeline.gate.verdict import (
    baseline_gap,
    comparison_verdict,
    floor_verdict,
    metric_verdict,
)

JUDGE_UNKNOWN = "judge unknown: calibration not applied"


@dataclass(frozen=True)
class Evidence:
    """Everything the gate measured, shared by every metric's decision (arrays per metric)."""

    draws: CellDraws
    cand_stats: ItemStats
    base_stats: ItemStats | None
    cand_low: np.ndarray
    cand_high: np.ndarray
    low: np.ndarray | None
    high: np.ndarray | None
    fail_tail: float
    scored: set[str]
    base_inapplicable: set[str]
    mismatched: dict[str, str]
    missing: dict[str, MissingCount]
    inapplicable: dict[str, dict[str, int]]
    slices: dict[str, list[SliceDecision]]
    evidence: dict[str, tuple[EvidenceItem, ...]]


def _comparison(
    config: GateConfig, rule: MetricRule, j: int, seen: Evidence
) -> tuple[tuple[Verdict, str], PowerReport | None]:
    """The baseline comparison, or what stands in for it (a baseline gap, a version clash)."""
    draws = seen.draws
    n_cand, n_base = int(draws.n_cand[j]), int(draws.n_base[j])
    gap: tuple[Verdict, str] | None = baseline_gap(
        has_baseline=seen.base_stats is not None,
        baseline_scored=n_base > 0,
        baseline_inapplicable=rule.metric_id in seen.base_inapplicable,
        first_baseline=config.first_baseline,
        allowed=config.tier.first_baseline_allowed,
        tier=config.tier.name,
    )
    if gap is None and rule.metric_id in seen.mismatched:
        gap = ("fail", seen.mismatched[rule.metric_id])
    if gap is not None:
        if gap[0] == "pass" and n_cand < config.min_items:
            return comparison_verdict(None, None, rule.margin, n_cand, config.min_items), None
        return gap, None
    assert seen.base_stats is not None and draws.delta_se is not None
    comparison = comparison_verdict(
        entry(seen.low, j), entry(seen.high, j), rule.margin, min(n_cand, n_base), config.min_items
    )
    power = power_report(
        se=float(draws.delta_se[j]),
        margin=rule.margin,
        fail_tail=seen.fail_tail,
        power=config.power,
        cand=seen.cand_stats,
        base=seen.base_stats,
        column=j,
        min_items=config.min_items,
    )
    return comparison, power


def _trust(
    config: GateConfig, metric_id: str, verdict: Verdict, reason: str
) -> tuple[Verdict, str, str]:
    """Apply refusals and judge trust: (verdict, reason, warning or "")."""
    refusal = config.refused_metrics.get(metric_id)
    if refusal is not None:
        return "fail", f"{refusal}; {reason}", ""
    distrust = config.untrusted_metrics.get(metric_id)
    if distrust is not None and verdict == "pass":
        # A judge over its false-pass ceiling can show a failure but not a pass.
        return "inconclusive", f"untrusted judge ({distrust}); {reason}", ""
    if metric_id in config.unknown_judge_metrics:
        if config.tier.unknown_judge_allowed:
            return verdict, reason, f"{metric_id}: {JUDGE_UNKNOWN}"
        return (
            "fail",
            (
                f"{JUDGE_UNKNOWN}, and tier {config.tier.name} gates no metric on an unknown judge "
                f"(add the suite's judge: block); {reason}"
            ),
            "",
        )
    return verdict, reason, ""


def assess_metric(
    config: GateConfig, rule: MetricRule, j: int, seen: Evidence
) -> tuple[MetricDecision, list[str]]:
    """The decision on metric ``rule`` (column ``j`` of the arrays) and its warnings."""
    draws = seen.draws
    floor = floor_verdict(
        entry(draws.cand_point, j),
        entry(seen.cand_low, j),
        entry(seen.cand_high, j),
        rule.threshold,
        config.tier.floor_mode,
    )
    comparison, power = _comparison(config, rule, j, seen)
    metric_slices = tuple(seen.slices[rule.metric_id])
    verdict, reason = metric_verdict(
        has_scores=rule.metric_id in seen.scored,
        missing=seen.missing[rule.metric_id],
        not_applicable=sum(seen.inapplicable[rule.metric_id].values()),
        floor=floor,
        comparison=comparison,
        slices=metric_slices,
    )
    verdict, reason, note = _trust(config, rule.metric_id, verdict, reason)
    warnings = [note] if note else []
    blocking = verdict == "fail" or (
        verdict == "inconclusive" and not config.tier.inconclusive_passes
    )
    if verdict == "inconclusive" and not blocking:
        warnings.append(f"{rule.metric_id}: inconclusive, passes with a warning: {reason}")
    if (
        power is not None
        and power.min_detectable_regression is not None
        and rule.margin > 0
        and not power.margin_detectable
    ):
        warnings.append(f"{rule.metric_id}: suite {power.note}")
    decision = MetricDecision(
        metric_id=rule.metric_id,
        verdict=verdict,
        candidate_mean=entry(draws.cand_point, j),
        baseline_mean=entry(draws.base_point, j),
        delta=entry(draws.delta_point, j),
        ci_low=entry(seen.low, j),
        ci_high=entry(seen.high, j),
        threshold=rule.threshold,
        max_regression=rule.margin,
        missing=seen.missing[rule.metric_id],
        reason=reason,
        blocking=blocking,
        slices=metric_slices,
        evidence=seen.evidence[rule.metric_id],
        power=power,
        candidate_ci=(entry(seen.cand_low, j), entry(seen.cand_high, j)),
        n_candidate_items=int(draws.n_cand[j]),
        n_baseline_items=int(draws.n_base[j]),
        n_paired_items=int(draws.n_paired[j]),
        not_applicable=seen.inapplicable[rule.metric_id],
    )
    return decision, warnings
