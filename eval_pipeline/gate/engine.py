"""The release gate: scores of a candidate (and its baseline) in, a :class:`GateReport` out.

Error budget. The overall interval on delta is two-sided at level 1 - alpha: its lower bound
decides ``pass`` (a candidate regressing exactly by the margin passes at most alpha/2 of the
time). A ``fail`` claim (an A/A false alarm) is charged to a budget of alpha/2 shared by the
overall upper bound and the slice family: with slices configured, the overall upper bound
takes (1 - share) * alpha/2 and the K slice cells split share * alpha/2 (Bonferroni), so a
gate with 10 slices raises false alarms no more often than one without.
"""

import numpy as np
import pandas as pd

from eval_pipeline.gate.bootstrap import draw_cell, seeded_rng
from eval_pipeline.gate.budgets import evaluate_budgets
from eval_pipeline.gate.decision import GateReport, MetricDecision, Verdict
from eval_pipeline.gate.evidence import worst_items
from eval_pipeline.gate.frame import NOT_APPLICABLE, normalise_scores
from eval_pipeline.gate.intervals import studentized_bounds
from eval_pipeline.gate.items import item_stats
from eval_pipeline.gate.lattice import metric_steps, widen
from eval_pipeline.gate.missing import count_missing, not_applicable_causes
from eval_pipeline.gate.power import power_report
from eval_pipeline.gate.rules import GateConfig
from eval_pipeline.gate.slices import delta_bounds, entry, runs_behind, slice_decisions
from eval_pipeline.gate.verdict import (
    FIRST_BASELINE,
    baseline_gap,
    comparison_verdict,
    floor_verdict,
    metric_verdict,
)
from eval_pipeline.gate.versions import version_mismatches


def _borrow_slices(base: pd.DataFrame, cand: pd.DataFrame, slices: tuple[str, ...]) -> pd.DataFrame:
    """Give the baseline the candidate's item-level slice labels where it has none."""
    absent = [s for s in slices if s not in base.columns]
    if not absent:
        return base
    labels = cand.drop_duplicates("item_id").set_index("item_id")[absent]
    merged = base.join(labels, on="item_id")
    for name in absent:
        merged[name] = merged[name].fillna("(none)")
    return merged


def evaluate_gate(
    config: GateConfig, candidate: pd.DataFrame, baseline: pd.DataFrame | None
) -> GateReport:
    """Decide the gate.

    Args:
        config: Metrics, budgets, slices, tier and statistical settings.
        candidate: Long scores of the candidate build (see ``frame.normalise_scores``).
        baseline: Long scores of the baseline build, or None (floors and budgets only).

    Returns:
        The report; ``report.exit_code`` is what CI should exit with.

    Raises:
        ScoreFrameError: A scores table is malformed.
    """
    if config.first_baseline and baseline is not None:
        raise ValueError("a run declared a first baseline is gated without a baseline")
    ids = config.metric_ids
    cand = normalise_scores(
        candidate, metric_ids=ids, slices=config.slices, source="candidate scores"
    )
    base = None
    if baseline is not None:
        base = normalise_scores(
            baseline,
            metric_ids=ids,
            slices=config.slices,
            source="baseline scores",
            require_slices=False,
        )
        base = _borrow_slices(base, cand, config.slices)
    missing = count_missing(config, cand, base)
    inapplicable = not_applicable_causes(config, cand)
    cand_stats = item_stats(cand, ids)[None]
    base_stats = item_stats(base, ids)[None] if base is not None else None
    draws = draw_cell(
        cand_stats, base_stats, seeded_rng(config.seed, "overall"), config.n_resamples
    )
    half = config.alpha / 2
    fail_tail = half * (1 - config.slice_alpha_share) if config.slices else half
    steps = metric_steps([cand] if base is None else [cand, base], ids)
    cand_low, cand_high = studentized_bounds(
        draws.cand_point,
        draws.cand_se,
        draws.cand_draws,
        draws.cand_se_draws,
        draws.n_cand,
        half,
        half,
    )
    cand_low, cand_high = widen(
        cand_low, cand_high, steps, runs_behind(cand_stats, None), draws.cand_se
    )
    low, high = delta_bounds(draws, half, fail_tail)
    se = draws.delta_se
    if low is not None and high is not None and se is not None:
        low, high = widen(low, high, steps, runs_behind(cand_stats, base_stats), se)
        # Scores live in [0, 1]: a bound past the range (few items, wide t quantiles) says
        # nothing more than the range's end, and would read as nonsense in a report.
        low, high = np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)
    cand_low, cand_high = np.clip(cand_low, 0.0, 1.0), np.clip(cand_high, 0.0, 1.0)
    slices = slice_decisions(config, cand, base, steps)
    evidence = worst_items(cand, base, ids, config.slices, config.evidence_items)
    scored = set(cand.loc[cand["status"] == "scored", "metric_id"])
    base_inapplicable = (
        set(base.loc[base["status"] == NOT_APPLICABLE, "metric_id"]) if base is not None else set()
    )
    mismatched = version_mismatches(cand, base) if base is not None else {}
    first = config.first_baseline and config.tier.first_baseline_allowed
    decisions, warnings = [], []
    if first:
        warnings.append(f"{FIRST_BASELINE} (tier {config.tier.name} accepts one)")
    for j, rule in enumerate(config.metrics):
        n_cand, n_base = int(draws.n_cand[j]), int(draws.n_base[j])
        floor = floor_verdict(
            entry(draws.cand_point, j),
            entry(cand_low, j),
            entry(cand_high, j),
            rule.threshold,
            config.tier.floor_mode,
        )
        power = None
        comparison = baseline_gap(
            has_baseline=base is not None,
            baseline_scored=n_base > 0,
            baseline_inapplicable=rule.metric_id in base_inapplicable,
            first_baseline=config.first_baseline,
            allowed=config.tier.first_baseline_allowed,
            tier=config.tier.name,
        )
        if comparison is None and rule.metric_id in mismatched:
            comparison = ("fail", mismatched[rule.metric_id])
        if comparison is None and base_stats is not None and se is not None:
            n_eff = min(n_cand, n_base)
            comparison = comparison_verdict(
                entry(low, j), entry(high, j), rule.margin, n_eff, config.min_items
            )
            power = power_report(
                se=float(se[j]),
                margin=rule.margin,
                fail_tail=fail_tail,
                power=config.power,
                cand=cand_stats,
                base=base_stats,
                column=j,
                min_items=config.min_items,
            )
        elif comparison is not None and comparison[0] == "pass" and n_cand < config.min_items:
            comparison = comparison_verdict(None, None, rule.margin, n_cand, config.min_items)
        assert comparison is not None  # a baseline gap, else the comparison with the baseline
        metric_slices = tuple(slices[rule.metric_id])
        verdict, reason = metric_verdict(
            has_scores=rule.metric_id in scored,
            missing=missing[rule.metric_id],
            not_applicable=sum(inapplicable[rule.metric_id].values()),
            floor=floor,
            comparison=comparison,
            slices=metric_slices,
        )
        distrust = config.untrusted_metrics.get(rule.metric_id)
        if distrust is not None and verdict == "pass":
            # A judge over its false-pass ceiling can show a failure but not a pass.
            verdict, reason = "inconclusive", f"untrusted judge ({distrust}); {reason}"
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
        decisions.append(
            MetricDecision(
                metric_id=rule.metric_id,
                verdict=verdict,
                candidate_mean=entry(draws.cand_point, j),
                baseline_mean=entry(draws.base_point, j),
                delta=entry(draws.delta_point, j),
                ci_low=entry(low, j),
                ci_high=entry(high, j),
                threshold=rule.threshold,
                max_regression=rule.margin,
                missing=missing[rule.metric_id],
                reason=reason,
                blocking=blocking,
                slices=metric_slices,
                evidence=evidence[rule.metric_id],
                power=power,
                candidate_ci=(entry(cand_low, j), entry(cand_high, j)),
                n_candidate_items=n_cand,
                n_baseline_items=n_base,
                n_paired_items=int(draws.n_paired[j]),
                not_applicable=inapplicable[rule.metric_id],
            )
        )
    budgets = evaluate_budgets(config, cand, base)
    verdicts = [d.verdict for d in decisions] + [b.verdict for b in budgets]
    overall: Verdict = (
        "fail" if "fail" in verdicts else "inconclusive" if "inconclusive" in verdicts else "pass"
    )
    return GateReport(
        overall,
        config.tier.name,
        tuple(decisions),
        budgets,
        tuple(warnings),
        first_baseline=config.first_baseline and base is None,
    )
