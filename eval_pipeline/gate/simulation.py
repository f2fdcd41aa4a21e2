"""Synthetic clustered scores with a known truth, to validate the gate by simulation.

Each item has its own level (an item effect, uniform around the metric's mean), each run
adds noise around it (graded metrics) or draws a Bernoulli outcome from it (binary
metrics). The candidate shares the baseline's items and item effects, shifted by ``delta``
(and by ``slice_deltas`` on chosen slice values). Spreads are capped so nothing is clipped:
the population means are exactly ``mean`` and ``mean + delta``.

Some rows may be ``not_applicable``: a share of the items to which the metric never applies
(the same items in both builds, like single-agent tasks for a hand-off metric), and a share of
the other runs drawn independently in each build (like answers that happen to claim nothing).
Which rows are not applicable is independent of the values, so the means stay as designed.
"""

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class SimMetric:
    """One simulated metric: binary (pass/fail runs) or graded (values in [0, 1])."""

    metric_id: str
    kind: Literal["binary", "graded"]
    mean: float
    item_spread: float = 0.1
    run_noise: float = 0.05
    not_applicable_items: float = 0.0
    not_applicable_runs: float = 0.0


@dataclass(frozen=True)
class SimDesign:
    """Shape of a simulated suite."""

    metrics: tuple[SimMetric, ...]
    n_items: int = 150
    runs_per_item: int = 3
    slices: dict[str, int] = field(default_factory=dict)
    latency_median_s: float = 4.0
    cost_usd: float = 0.05


def _labels(design: SimDesign, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        name: np.array([f"{name}{v}" for v in rng.permutation(design.n_items) % count])
        for name, count in design.slices.items()
    }


def _build(
    design: SimDesign,
    levels: dict[str, np.ndarray],
    labels: dict[str, np.ndarray],
    shift: dict[str, np.ndarray],
    inapplicable: dict[str, np.ndarray],
    rng: np.random.Generator,
    tag: str,
) -> pd.DataFrame:
    n, k = design.n_items, design.runs_per_item
    items = np.repeat(np.arange(n), k)
    runs = np.tile(np.arange(k), n)
    latency = rng.lognormal(np.log(design.latency_median_s), 0.4, n * k)
    cost = design.cost_usd * rng.uniform(0.5, 1.5, n * k)
    frames = []
    for metric in design.metrics:
        level = np.repeat(levels[metric.metric_id] + shift[metric.metric_id], k)
        if metric.kind == "binary":
            values = (rng.random(n * k) < level).astype(np.float64)
        else:
            values = level + rng.uniform(-metric.run_noise, metric.run_noise, n * k)
        absent = np.repeat(inapplicable[metric.metric_id], k)
        if metric.not_applicable_runs > 0:  # no draw otherwise: designs without keep their data
            absent |= rng.random(n * k) < metric.not_applicable_runs
        frame = pd.DataFrame(
            {
                "item_id": [f"item{i:04d}" for i in items],
                "run_index": runs,
                "metric_id": metric.metric_id,
                "value": np.where(absent, np.nan, np.clip(values, 0.0, 1.0)),
                "status": np.where(absent, "not_applicable", "scored"),
                "trace_id": [f"{tag}-{i}-{r}" for i, r in zip(items, runs, strict=True)],
                "latency_s": latency,
                "cost_usd": cost,
            }
        )
        for name, values_ in labels.items():
            frame[name] = np.repeat(values_, k)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def simulate_pair(
    design: SimDesign,
    seed: int,
    *,
    delta: float = 0.0,
    slice_deltas: dict[tuple[str, str], float] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Candidate and baseline scores; the candidate's true mean differs by ``delta``.

    Args:
        design: Metrics, items, runs and slices.
        seed: Seed of the simulation.
        delta: True shift of every metric (candidate - baseline).
        slice_deltas: Extra shift on items of one slice value: ``{("intent", "intent3"): -0.3}``.

    Returns:
        (candidate, baseline) long score frames with slice, latency and cost columns.
    """
    rng = np.random.default_rng(seed)
    labels = _labels(design, rng)
    levels, zero, shift, inapplicable = {}, {}, {}, {}
    for metric in design.metrics:
        extra = min(slice_deltas.values(), default=0.0) if slice_deltas else 0.0
        room = min(metric.mean + min(delta + extra, 0.0), 1.0 - metric.mean - max(delta, 0.0))
        noise = metric.run_noise if metric.kind == "graded" else 0.0
        spread = max(min(metric.item_spread, room - noise), 0.0)
        levels[metric.metric_id] = metric.mean + rng.uniform(-spread, spread, design.n_items)
        zero[metric.metric_id] = np.zeros(design.n_items)
        moved = np.full(design.n_items, delta)
        for (name, value), amount in (slice_deltas or {}).items():
            moved = moved + np.where(labels[name] == value, amount, 0.0)
        shift[metric.metric_id] = moved
        inapplicable[metric.metric_id] = (
            rng.random(design.n_items) < metric.not_applicable_items
            if metric.not_applicable_items > 0
            else np.zeros(design.n_items, dtype=bool)
        )
    baseline = _build(design, levels, labels, zero, inapplicable, rng, "base")
    candidate = _build(design, levels, labels, shift, inapplicable, rng, "cand")
    return candidate, baseline
