"""The estimators' edge cases: a census, bad probabilities, shares, offline clusters.

Contract: a sample that took every trace (pi = 1) is the traffic, with no sampling error; a
probability outside (0, 1] or a length mismatch is refused; slice shares sum to one; the
offline interval is over items, so runs of one item do not count as independent evidence.
"""

import numpy as np
import pytest

from eval_pipeline.realtime.online.estimates import (
    clustered_mean,
    hajek,
    hajek_shares,
    total_variation,
)


def test_a_census_has_no_sampling_error() -> None:
    census = hajek([1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0])
    assert (census.mean, census.low, census.high, census.se) == (0.75, 0.75, 0.75, 0.0)


def test_weights_pull_the_estimate_towards_rarely_sampled_traces() -> None:
    estimate = hajek([0.0, 1.0], [1.0, 0.1])
    assert estimate.mean == pytest.approx(10 / 11) and estimate.weight == pytest.approx(11.0)
    assert estimate.low is not None and estimate.high is not None
    assert 0.0 <= estimate.low < estimate.mean < estimate.high <= 1.0


@pytest.mark.parametrize("probabilities", [[0.0, 0.5], [1.5, 0.5], [0.5]])
def test_bad_probabilities_are_refused(probabilities: list[float]) -> None:
    with pytest.raises(ValueError, match="inclusion probabilit"):
        hajek([1.0, 0.0], probabilities)


def test_shares_sum_to_one_and_total_variation_compares_mixes() -> None:
    shares = hajek_shares(["a", "b", "a"], [0.5, 0.1, 1.0])
    assert sum(s.mean or 0.0 for s in shares.values()) == pytest.approx(1.0)
    assert total_variation({"a": 0.6, "b": 0.4}, {"a": 0.1, "c": 0.9}) == pytest.approx(0.9)


def test_offline_runs_of_one_item_are_one_cluster() -> None:
    values = np.array([1.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    by_run = clustered_mean(values, ["a", "b", "c", "d", "e", "f"])
    by_item = clustered_mean(values, ["a", "a", "b", "b", "c", "c"])
    assert by_run.mean == by_item.mean == 0.5
    assert by_item.se is not None and by_run.se is not None and by_item.se > by_run.se
    assert clustered_mean([1.0, 0.0], ["a", "a"]).low is None  # one item: no interval
