"""Simulation: the Hajek estimate of a flag-biased production sample is unbiased and covers.

Contract: over many seeded populations of traffic, where flagged traces (tool errors, long
trajectories, thumbs-down) fail more often, the shipped sampler (the medium tier's rates, the
hash of each trace id) draws a sample that over-represents failures. The plain mean of that
sample is biased low; the Hajek estimate weighted by the recorded inclusion probabilities is
unbiased (its mean error is within three standard errors of zero) and its 95% interval covers
the population's true mean at about the nominal rate; per slice too (slow study).
"""

from dataclasses import dataclass

import numpy as np
import pytest

from eval_pipeline.realtime.online.estimates import hajek
from eval_pipeline.realtime.online.sampler import SamplingPolicy, sample_traces
from eval_pipeline.suites.risk import load_risk_policy

POLICY = SamplingPolicy.of(load_risk_policy().tier("medium"))
SLICES = ("return", "cancel", "mixed")


@dataclass(frozen=True)
class Population:
    """One day of traffic: trace ids, flags, thumbs-downs, slice and outcome per trace."""

    trace_ids: list[str]
    flags: dict[str, tuple[str, ...]]
    thumbs_down: set[str]
    intent: dict[str, str]
    success: dict[str, float]


def population(seed: int, size: int) -> Population:
    rng = np.random.default_rng(seed)
    ids = [f"{value:032x}" for value in rng.integers(0, 2**63, size=size)]
    tool_error = rng.random(size) < 0.08
    long_run = rng.random(size) < 0.15
    intent = rng.choice(SLICES, size=size, p=[0.6, 0.3, 0.1])
    # Failures concentrate where the detectors flag, and differ by slice.
    p_success = 0.92 - 0.45 * tool_error - 0.25 * long_run - 0.1 * (intent == "mixed")
    success = (rng.random(size) < p_success).astype(float)
    unhappy = rng.random(size) < np.where(success == 0, 0.3, 0.01)
    flags = {
        t: tuple(
            kind
            for kind, on in (("tool_error@2", tool_error[i]), ("long_trajectory@1", long_run[i]))
            if on
        )
        for i, t in enumerate(ids)
    }
    return Population(
        ids,
        flags,
        {t for i, t in enumerate(ids) if unhappy[i]},
        dict(zip(ids, intent, strict=True)),
        dict(zip(ids, success, strict=True)),
    )


def study(seeds: range, size: int, domain: str | None = None) -> dict[str, np.ndarray]:
    """Per population: true mean, Hajek estimate and interval, plain sample mean."""
    truth, estimate, low, high, plain = [], [], [], [], []
    for seed in seeds:
        pop = population(seed, size)
        members = [t for t in pop.trace_ids if domain is None or pop.intent[t] == domain]
        sampled = [
            s
            for s in sample_traces(pop.flags, POLICY, pop.thumbs_down)
            if domain is None or pop.intent[s.trace_id] == domain
        ]
        values = [pop.success[s.trace_id] for s in sampled]
        result = hajek(values, [s.probability for s in sampled])
        assert result.mean is not None and result.low is not None and result.high is not None
        truth.append(np.mean([pop.success[t] for t in members]))
        estimate.append(result.mean)
        low.append(result.low)
        high.append(result.high)
        plain.append(np.mean(values))
    return {k: np.asarray(v) for k, v in locals().items() if isinstance(v, list)}


def assert_unbiased_and_covering(
    runs: dict[str, np.ndarray], coverage: tuple[float, float]
) -> None:
    error = runs["estimate"] - runs["truth"]
    standard_error = error.std(ddof=1) / np.sqrt(len(error))
    assert abs(error.mean()) < 3 * standard_error, (error.mean(), standard_error)
    covered = np.mean((runs["low"] <= runs["truth"]) & (runs["truth"] <= runs["high"]))
    assert coverage[0] <= covered <= coverage[1], covered
    plain_error = runs["plain"] - runs["truth"]
    plain_se = plain_error.std(ddof=1) / np.sqrt(len(plain_error))
    assert plain_error.mean() < -5 * plain_se, (plain_error.mean(), plain_se)
    assert abs(plain_error.mean()) > 4 * abs(error.mean())


def test_the_weighted_estimate_is_unbiased_and_covers_while_the_plain_mean_is_biased() -> None:
    runs = study(range(200), size=2000)
    assert_unbiased_and_covering(runs, coverage=(0.90, 0.99))


def test_the_sample_over_represents_flagged_traces() -> None:
    pop = population(7, 2000)
    sampled = sample_traces(pop.flags, POLICY, pop.thumbs_down)
    flagged_share_sample = np.mean([bool(s.flags) for s in sampled])
    flagged_share_traffic = np.mean([bool(f) for f in pop.flags.values()])
    assert flagged_share_sample > 2 * flagged_share_traffic
    assert {
        s.probability for s in sampled if not s.flags and s.trace_id not in pop.thumbs_down
    } == {POLICY.base_rate}


@pytest.mark.slow
@pytest.mark.parametrize("domain", [None, *SLICES])
def test_the_large_study_per_slice(domain: str | None) -> None:
    runs = study(range(1000, 2000), size=4000, domain=domain)
    assert_unbiased_and_covering(runs, coverage=(0.925, 0.975))
