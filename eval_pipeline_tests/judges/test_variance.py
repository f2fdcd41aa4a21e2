"""Judge variance and runs-per-item advice.

Judge variance: the within/between-item split matches the one-way ANOVA computed directly (and
recovers known components from simulated repeated verdicts), and the runs-per-item advice is the
smallest number of runs whose interval on the suite mean fits the target width, or None when
between-item variance alone is too wide.
"""

import math

import numpy as np
import pytest
from scipy import stats

from eval_pipeline.judges.variance import runs_per_item_advice, variance_split


def _simulate(items: int, runs: int, between_sd: float, within_sd: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    means = rng.normal(0.6, between_sd, size=items)
    return {f"i{i}": list(means[i] + rng.normal(0, within_sd, size=runs)) for i in range(items)}


def test_split_matches_one_way_anova() -> None:
    scores = _simulate(items=12, runs=4, between_sd=0.2, within_sd=0.1, seed=1)
    split = variance_split(scores)
    groups = [np.array(v) for v in scores.values()]
    f_stat, _ = stats.f_oneway(*groups)
    ms_within = np.mean([g.var(ddof=1) for g in groups])
    assert split.within_variance == pytest.approx(ms_within)
    ms_between = f_stat * ms_within
    assert split.between_variance == pytest.approx((ms_between - ms_within) / 4)
    assert split.per_item_std["i0"] == pytest.approx(groups[0].std(ddof=1))


def test_split_recovers_simulated_components() -> None:
    split = variance_split(_simulate(items=400, runs=5, between_sd=0.2, within_sd=0.1, seed=2))
    assert split.within_variance == pytest.approx(0.01, rel=0.1)
    assert split.between_variance == pytest.approx(0.04, rel=0.2)
    assert split.icc == pytest.approx(0.8, abs=0.05)


def test_advice_is_the_smallest_sufficient_number_of_runs() -> None:
    scores = _simulate(items=50, runs=3, between_sd=0.05, within_sd=0.3, seed=3)
    split = variance_split(scores)
    advice = runs_per_item_advice(scores, target_width=0.1, n_items=100)
    assert advice.runs_per_item is not None and advice.runs_per_item > 1

    def width(runs: int) -> float:
        var = (split.between_variance + split.within_variance / runs) / 100
        return 2 * 1.959964 * math.sqrt(var)

    assert width(advice.runs_per_item) <= 0.1 < width(advice.runs_per_item - 1)
    assert advice.width_at_advice == pytest.approx(width(advice.runs_per_item), rel=1e-4)


def test_advice_says_add_items_when_between_variance_dominates() -> None:
    scores = _simulate(items=20, runs=3, between_sd=0.3, within_sd=0.05, seed=4)
    advice = runs_per_item_advice(scores, target_width=0.05)
    assert advice.runs_per_item is None
    assert "add items" in advice.reason


def test_needs_repeated_scores() -> None:
    with pytest.raises(ValueError, match="at least two repeated"):
        variance_split({"a": [0.1], "b": [0.2]})
