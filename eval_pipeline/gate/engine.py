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

from eval_pipeline.gate.assessment import Evidence, assess_metric
from eval_pipeline.gate.bootstrap import draw_cell
from eval_pipeline.gate.budgets import budget_runs, evaluate_budgets
from eval_pipeline.gate.decision import GateReport, Verdict
from eval_pipeline.gate.evidence import worst_items
from eval_pipeline.gate.frame import NOT_APPLICABLE, normalise_scores
from eval_pipeline.gate.intervals import studentized_bounds
from eval_pipeline.gate.items import item_stats
from eval_pipeline.gate.lattice import metric_steps, widen
from eval_pipeline.gate.missing import count_missing, not_applicable_causes
from eval_pipeline.gate.resampling import seeded_rng
from eval_pipeline.gate.rules import GateConfig
from eval_pipeline.gate.slices import delta_bounds, runs_behind, slice_decisions
from eval_pipeline.gate.verdict import FIRST_BASELINE
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
    config: GateConfig,
    candidate: pd.DataFrame,
    baseline: pd.DataFrame | None,
    *,
    sources: tuple[str, str] = ("candidate scores", "baseline scores"),
) -> GateReport:
    """Decide the gate.

    Args:
        config: Metrics, budgets, slices, tier and statistical settings.
        candidate: Long scores of the candidate build (see ``frame.normalise_scores``).
        baseline: Long scores of the baseline build, or None (floors and budgets only).
        sources: Names of the two tables in error messages (their files, when read from one).

    Returns:
        The report; ``report.exit_code`` is what CI should exit with.

    Raises:
        ScoreFrameError: A scores table is malformed.
    """
    if config.first_baseline and baseline is not None:
        raise ValueError("a run declared a first baseline is gated without a baseline")
    ids = config.metric_ids
    cand = normalise_scores(candidate, metric_ids=ids, slices=config.slices, source=sources[0])
    base = None
    if baseline is not None:
        base = normalise_scores(
            baseline,
            metric_ids=ids,
            slices=config.slices,
            source=sources[1],
            require_slices=False,
        )
        base = _borrow_slices(base, cand, config.slices)
    cand_stats = item_stats(cand, ids)[None]
    base_stats = item_stats(base, ids)[None] if base is not None else None
    measured = budget_runs(config, cand)
    draws = draw_cell(
        cand_stats,
        base_stats,
        seeded_rng(config.seed, "overall"),
        config.n_resamples,
        observer=measured.draws if measured is not None else None,
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
    seen = Evidence(
        draws=draws,
        cand_stats=cand_stats,
        base_stats=base_stats,
        cand_low=np.clip(cand_low, 0.0, 1.0),
        cand_high=np.clip(cand_high, 0.0, 1.0),
        low=low,
        high=high,
        fail_tail=fail_tail,
        scored=set(cand.loc[cand["status"] == "scored", "metric_id"]),
        base_inapplicable=(
            set(base.loc[base["status"] == NOT_APPLICABLE, "metric_id"])
            if base is not None
            else set()
        ),
        mismatched=version_mismatches(cand, base) if base is not None else {},
        missing=count_missing(config, cand, base),
        inapplicable=not_applicable_causes(config, cand),
        slices=slice_decisions(config, cand, base, steps),
        evidence=worst_items(cand, base, ids, config.slices, config.evidence_items),
    )
    decisions, warnings = [], []
    if config.first_baseline and config.tier.first_baseline_allowed:
        warnings.append(f"{FIRST_BASELINE} (tier {config.tier.name} accepts one)")
    for j, rule in enumerate(config.metrics):
        decision, notes = assess_metric(config, rule, j, seen)
        decisions.append(decision)
        warnings.extend(notes)
    budgets = evaluate_budgets(config, measured, base)
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
