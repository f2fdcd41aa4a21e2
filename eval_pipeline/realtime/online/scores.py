"""Online scores: the traffic's metric means, per slice, beside the deployed build's offline.

Online, each scored row of the day's production sample is weighted by the inverse of its
trace's recorded inclusion probability (``estimates.hajek``), so the estimates are of
the traffic, not of the flag-biased sample. Offline, the deployed build is the production
suite's pinned baseline (``BuildRegistry.baseline_for``: the build every release is gated
against, i.e. the one serving traffic); its latest scores give the plain mean with a
variance over items. Rows that are not ``scored`` are left out of both means and counted.
"""

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.home import Home
from eval_pipeline.realtime.online.estimates import (
    EMPTY,
    Estimate,
    clustered_mean,
    hajek,
    hajek_shares,
)
from eval_pipeline.realtime.online.sample import load_sample
from eval_pipeline.realtime.online.scoring import production_stage
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline.scoring.store import ScoreStore

ALL = "all"
"""The slice label of a metric's estimate over all traffic."""


@dataclass(frozen=True)
class Comparison:
    """One metric over one slice: the online estimate beside the offline one."""

    metric_id: str
    slice: str
    online: Estimate
    offline: Estimate
    not_scored_online: int

    def row(self) -> dict[str, Any]:
        """A flat row for tables: each side as ``mean [low, high]`` and its count."""
        return {
            "metric_id": self.metric_id,
            "slice": self.slice,
            "online": _shown(self.online),
            "online_n": self.online.n,
            "offline": _shown(self.offline),
            "offline_n": self.offline.n,
            "not_scored_online": self.not_scored_online,
        }


def _shown(estimate: Estimate) -> str:
    if estimate.mean is None:
        return "-"
    if estimate.low is None or estimate.high is None:
        return f"{estimate.mean:.3f}"
    return f"{estimate.mean:.3f} [{estimate.low:.3f}, {estimate.high:.3f}]"


@dataclass(frozen=True)
class OnlineScores:
    """A day's online estimates, the deployed build's offline ones, and both slice mixes."""

    day: str
    suite: str
    deployed_build: str | None
    sampled_traces: int
    comparisons: list[Comparison]
    online_mix: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    offline_mix: dict[str, dict[str, float]] = field(default_factory=dict)

    def metadata(self) -> dict[str, Any]:
        """Plain metadata: the deployed build, counts, the comparison and slice-mix tables."""
        from eval_pipeline.evaluation.slices_stage import markdown_table

        overall = {c.metric_id: c.online.as_dict() for c in self.comparisons if c.slice == ALL}
        mix = [
            {
                "dimension": dimension,
                "slice": label,
                "online_share": share.mean,
                "online_low": share.low,
                "online_high": share.high,
                "offline_share": self.offline_mix.get(dimension, {}).get(label, 0.0),
            }
            for dimension, shares in self.online_mix.items()
            for label, share in shares.items()
        ]
        return {
            "day": self.day,
            "suite": self.suite,
            "deployed_build": self.deployed_build or "none: pin a baseline for the suite",
            "sampled_traces": self.sampled_traces,
            "online_by_metric": overall,
            "online_vs_offline_md": markdown_table(
                pd.DataFrame([c.row() for c in self.comparisons])
            ),
            "slice_mix_md": markdown_table(pd.DataFrame(mix)),
        }


def _slice_labels(frame: pd.DataFrame, dimension: str) -> "pd.Series[str]":
    if dimension not in frame.columns:
        return pd.Series(["unlabelled"] * len(frame), index=frame.index, dtype=object)
    return frame[dimension].fillna("unlabelled").astype(str)


def _online_rows(home: Home, stage: Stage, day: str) -> pd.DataFrame:
    """The day's score rows of traces in the current sample, with their probabilities."""
    probability = {s.trace_id: s.probability for s in load_sample(home, day)}
    frame = ScoreStore(home.store).read_frame(stage.build)
    frame = frame[frame["item_id"].astype(str).isin(probability.keys())].copy()
    frame["probability"] = frame["item_id"].astype(str).map(probability)
    return frame


def _cells(frame: pd.DataFrame, dimensions: tuple[str, ...]) -> list[tuple[str, pd.DataFrame]]:
    cells = [(ALL, frame)]
    for dimension in dimensions:
        labels = _slice_labels(frame, dimension)
        cells.extend(
            (f"{dimension}={label}", frame[labels == label]) for label in sorted(labels.unique())
        )
    return cells


def compare(online: pd.DataFrame, offline: pd.DataFrame, stage: Stage) -> list[Comparison]:
    """Every metric over all traffic and over each slice value: online beside offline."""
    comparisons = []
    dimensions = tuple(stage.suite.slices)
    for metric_id in stage.suite.metric_ids:
        ours = online[online["metric_id"] == metric_id]
        theirs = offline[offline["metric_id"] == metric_id] if len(offline) else offline
        offline_cells = dict(_cells(theirs, dimensions)) if len(theirs) else {}
        for label, cell in _cells(ours, dimensions):
            scored = cell[cell["status"] == ScoreStatus.SCORED]
            estimate = hajek(scored["value"].to_numpy(float), scored["probability"].to_numpy(float))
            base = offline_cells.get(label)
            base_scored = None if base is None else base[base["status"] == ScoreStatus.SCORED]
            reference = (
                EMPTY
                if base_scored is None
                else clustered_mean(
                    base_scored["value"].to_numpy(float), list(base_scored["item_id"])
                )
            )
            comparisons.append(
                Comparison(metric_id, label, estimate, reference, len(cell) - len(scored))
            )
    return comparisons


def online_scores(home: Home, day: str, suite: str) -> OnlineScores:
    """The day's online estimates beside the deployed build's offline scores."""
    stage = production_stage(home, day, suite)
    online = _online_rows(home, stage, day)
    deployed = BuildRegistry(home.state_url).baseline_for(stage.suite.suite)
    offline = ScoreStore(home.store).read_frame(deployed) if deployed else pd.DataFrame()
    traces = online.drop_duplicates("item_id")
    online_mix = {
        dimension: {
            str(label): share
            for label, share in hajek_shares(
                list(_slice_labels(traces, dimension)), list(traces["probability"])
            ).items()
        }
        for dimension in stage.suite.slices
    }
    offline_mix = {
        dimension: dict(
            pd.Series([e.item.slices.get(dimension, "unlabelled") for e in stage.items])
            .value_counts(normalize=True)
            .astype(float)
        )
        for dimension in stage.suite.slices
    }
    return OnlineScores(
        day,
        stage.suite.suite,
        deployed,
        int(traces["item_id"].nunique()),
        compare(online, offline, stage),
        online_mix,
        offline_mix,
    )
