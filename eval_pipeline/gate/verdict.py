"""Verdict rules (docs/DESIGN.md section 8, **contract**).

With delta = candidate - baseline, its interval [low, high] and the margin m:

* ``fail`` when scores are missing, when the floor is broken, or when high < -m (a
  regression beyond the margin is shown), or when a slice is shown to have collapsed;
* ``pass`` when the floor holds and low >= -m (the candidate is shown not to regress beyond
  the margin; the margin itself is tolerated, max_regression being inclusive);
* ``inconclusive`` otherwise, and whenever there are too few items for an interval.

What "the floor holds" means is the tier's choice (``TierPolicy.floor_mode``):

* ``point`` (default): the candidate's mean reaches the threshold. The threshold is an
  absolute requirement on the suite's measured score, as in the reference; noise around it
  is the job of the baseline comparison, and demanding a lower bound above the floor would
  make every candidate near its floor inconclusive. The candidate's interval is reported.
* ``interval`` (critical tiers): the floor must be shown, lower bound >= threshold; an
  upper bound below it breaks the floor; a floor inside the interval is inconclusive.

Without a baseline there is no evidence against a regression: a metric with no baseline
scores fails with that cause, unless the run is declared a first baseline and the tier accepts
one (floors and budgets only, said so in the reason).

Slices only ever add a ``fail`` (a slice shown to regress beyond the margin at the
family-corrected level): an inconclusive small slice does not make the metric inconclusive.
"""

import math

from eval_pipeline.gate.decision import MissingCount, SliceDecision, Verdict
from eval_pipeline.gate.rules import FloorMode


def _finite(*values: float | None) -> bool:
    return all(v is not None and math.isfinite(v) for v in values)


def comparison_verdict(
    low: float | None, high: float | None, margin: float, n_items: int, min_items: int
) -> tuple[Verdict, str]:
    """The verdict of the interval on delta against the margin."""
    if n_items < min_items or not _finite(low, high):
        return "inconclusive", (
            f"only {n_items} item(s) to compare: too few for an interval (needs {min_items})"
        )
    assert low is not None and high is not None
    interval = f"delta interval [{low:+.4f}, {high:+.4f}]"
    if high < -margin:
        return "fail", f"regression beyond the margin {margin:g} is shown: {interval}"
    if low >= -margin:
        return "pass", f"no regression beyond the margin {margin:g}: {interval}"
    return "inconclusive", (
        f"a regression beyond the margin {margin:g} is plausible but not shown: {interval}"
    )


NO_BASELINE = (
    "no baseline to compare with: missing evidence (a suite's first baseline is gated on "
    "floors and budgets only when declared one: gate --no-baseline)"
)
FIRST_BASELINE = "first baseline: no baseline compared, floors and budgets only"


def baseline_gap(
    *,
    has_baseline: bool,
    baseline_scored: bool,
    baseline_inapplicable: bool,
    first_baseline: bool,
    allowed: bool,
    tier: str,
) -> tuple[Verdict, str] | None:
    """What stands in for the comparison when a metric has no baseline scores (None: it has).

    ``pass`` only for a declared first baseline the tier accepts; ``inconclusive`` when the
    baseline declared the metric not applicable to every run; ``fail`` otherwise.
    """
    if not has_baseline:
        if not first_baseline:
            return "fail", NO_BASELINE
        if not allowed:
            return "fail", (
                f"tier {tier} does not accept a first baseline (floors only): gate against a "
                "baseline"
            )
        return "pass", FIRST_BASELINE
    if baseline_scored:
        return None
    if baseline_inapplicable:
        return "inconclusive", "the metric applies to no baseline run: nothing to compare with"
    return "fail", "no baseline scores for this metric: nothing to compare with (missing evidence)"


def floor_verdict(
    mean: float | None,
    low: float | None,
    high: float | None,
    threshold: float,
    mode: FloorMode,
) -> tuple[Verdict, str]:
    """Whether the candidate's mean holds the floor."""
    if mean is None or not math.isfinite(mean):
        return "fail", "no candidate mean"
    if mode == "point":
        if mean < threshold:
            return "fail", f"mean {mean:.4f} below floor {threshold:g}"
        return "pass", f"mean {mean:.4f} holds floor {threshold:g}"
    if not _finite(low, high):
        return "inconclusive", f"floor {threshold:g} cannot be shown without an interval"
    assert low is not None and high is not None
    if high < threshold:
        return "fail", f"mean {mean:.4f} below floor {threshold:g} (upper bound {high:.4f})"
    if low >= threshold:
        return "pass", f"floor {threshold:g} shown (lower bound {low:.4f})"
    return "inconclusive", f"floor {threshold:g} inside the interval [{low:.4f}, {high:.4f}]"


def metric_verdict(
    *,
    has_scores: bool,
    missing: MissingCount,
    not_applicable: int,
    floor: tuple[Verdict, str],
    comparison: tuple[Verdict, str],
    slices: tuple[SliceDecision, ...],
) -> tuple[Verdict, str]:
    """Combine missing scores, floor, comparison and slices into one verdict and reason."""
    if not has_scores and not missing.total and not_applicable:
        return "inconclusive", (
            f"not applicable: the metric applies to no run ({not_applicable} rows declared "
            "not applicable), so there is no evidence either way"
        )
    if not has_scores:
        detail = f" ({missing.describe()})" if missing.total else ""
        return "fail", f"no scores: the metric is in the suite but nothing scored it{detail}"
    if missing.total:
        return "fail", missing.describe()
    reason = f"{floor[1]}; {comparison[1]}"
    if floor[0] == "fail":
        return "fail", reason
    collapsed = [s for s in slices if s.verdict == "fail"]
    verdicts = (floor[0], comparison[0])
    verdict: Verdict = (
        "fail" if "fail" in verdicts else ("inconclusive" if "inconclusive" in verdicts else "pass")
    )
    if collapsed:
        names = ", ".join(
            f"{s.slice}={s.value} (delta {s.delta:+.4f}, upper bound {s.ci_high:+.4f})"
            for s in collapsed
            if s.delta is not None and s.ci_high is not None
        )
        if verdict == "fail":
            return "fail", f"{reason}; slice also collapsed: {names}"
        return "fail", f"slice collapsed while the average held: {names}; overall: {reason}"
    return verdict, reason
