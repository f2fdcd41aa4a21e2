"""Item-by-item changes of a candidate against its baseline, per metric, ranked by effect.

The unit is the item (the cluster the gate resamples): an item's runs are averaged per build,
and the difference of the two means is its effect. An item is

- ``regressed`` when the candidate's mean is lower, or when the candidate misses a score the
  baseline has (an ``unscored`` or ``error`` run, or no row at all: the gate counts those as
  failures too); missing ones rank first, then the largest drop;
- ``improved`` when the candidate's mean is higher (largest gain first);
- ``unchanged`` when the means are equal (within ``TOLERANCE``);
- ``unpaired`` when only one build has scored runs of it (nothing to compare).

For a metric whose scorer declares lower values better (``scoring.direction``), lower and
higher swap: a rise regressed (largest rise first), a fall improved.

Runs a metric does not apply to (``not_applicable``) are shown but never averaged. Every run of
both builds stays attached to its item (run index, value, status, reason, trace id), so a row
shows all runs, not just the worst one.
"""

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from eval_pipeline.scoring.direction import lower_is_better
from eval_pipeline.scoring.score import SCORE_COLUMNS
from eval_pipeline.scoring.store import RUN_METRICS

DIRECTIONS = ("regressed", "improved", "unchanged", "unpaired")
"""The groups an item falls in, in the order they are shown."""
TOLERANCE = 1e-9
"""Means closer than this are equal (float noise of averaging, not a change)."""
_SCORED = "scored"
_MISSING = frozenset({"unscored", "error"})


@dataclass(frozen=True)
class RunScore:
    """One run's score of one metric, as stored."""

    run_index: int
    value: float | None
    status: str
    reason: str | None
    trace_id: str | None

    def to_json(self) -> dict[str, Any]:
        """The run as JSON."""
        return {
            "run_index": self.run_index,
            "value": self.value,
            "status": self.status,
            "reason": self.reason,
            "trace_id": self.trace_id,
        }


@dataclass(frozen=True)
class ItemChange:
    """One item of one metric: both builds' runs, their means and the effect."""

    metric_id: str
    item_id: str
    direction: str
    candidate_mean: float | None
    baseline_mean: float | None
    candidate_runs: tuple[RunScore, ...]
    baseline_runs: tuple[RunScore, ...]
    slices: dict[str, str] = field(default_factory=dict)
    dataset: str | None = None
    dataset_version: str | None = None

    @property
    def delta(self) -> float | None:
        """Candidate mean - baseline mean (None when either is missing)."""
        if self.candidate_mean is None or self.baseline_mean is None:
            return None
        return self.candidate_mean - self.baseline_mean

    @property
    def missing(self) -> int:
        """Runs the candidate lacks a score of (``unscored``/``error``, or a row)."""
        return len(_missing_runs(self.candidate_runs, self.baseline_runs))

    def trace_ids(self) -> list[tuple[str, str]]:
        """``(side, trace id)`` of every run, baseline first (``side`` is the build's role)."""
        return [
            (side, run.trace_id)
            for side, runs in (("baseline", self.baseline_runs), ("candidate", self.candidate_runs))
            for run in runs
            if run.trace_id
        ]


@dataclass(frozen=True)
class MetricChanges:
    """One metric's items, grouped by direction, each group ranked by effect."""

    metric_id: str
    groups: Mapping[str, tuple[ItemChange, ...]]
    totals: Mapping[str, int] = field(default_factory=dict)

    def count(self, direction: str) -> int:
        """How many items went ``direction`` (all of them, also those a limit leaves out)."""
        return self.totals.get(direction, len(self.groups.get(direction, ())))

    def items(self) -> list[ItemChange]:
        """The items kept, in display order (regressed, improved, unchanged, unpaired)."""
        return [item for d in DIRECTIONS for item in self.groups.get(d, ())]

    def top(self, limit: int | None, directions: tuple[str, ...] = DIRECTIONS) -> "MetricChanges":
        """The first ``limit`` items of each of ``directions`` (all when None); totals kept."""
        return MetricChanges(
            self.metric_id,
            {d: self.groups.get(d, ())[:limit] for d in directions},
            {d: self.count(d) for d in DIRECTIONS},
        )


def _mean(runs: tuple[RunScore, ...]) -> float | None:
    values = [r.value for r in runs if r.status == _SCORED and r.value is not None]
    return sum(values) / len(values) if values else None


def _missing_runs(candidate: tuple[RunScore, ...], baseline: tuple[RunScore, ...]) -> set[int]:
    """Run indices the candidate has no score for: missing rows, ``unscored``/``error`` runs."""
    answered = {r.run_index for r in candidate if r.status not in _MISSING}
    lost = {r.run_index for r in baseline if r.status == _SCORED} - answered
    return lost | {r.run_index for r in candidate if r.status in _MISSING}


def _direction(
    candidate: tuple[RunScore, ...], baseline: tuple[RunScore, ...], sign: float = 1.0
) -> str:
    """The item's group; ``sign`` is -1 for a lower-is-better metric."""
    c, b = _mean(candidate), _mean(baseline)
    if b is not None and _missing_runs(candidate, baseline):
        return "regressed"  # a score the baseline has and the candidate lost
    if c is None or b is None:
        return "unpaired"
    if sign * (c - b) < -TOLERANCE:
        return "regressed"
    return "improved" if sign * (c - b) > TOLERANCE else "unchanged"


def _rank(direction: str, change: ItemChange, sign: float = 1.0) -> tuple[Any, ...]:
    delta = sign * change.delta if change.delta is not None else None
    if direction == "regressed":
        return (change.missing == 0, delta if delta is not None else 0.0, change.item_id)
    if direction == "improved":
        return (-(delta or 0.0), change.item_id)
    return (change.item_id,)


def slice_columns(frame: pd.DataFrame) -> list[str]:
    """The slice columns of a scores frame (everything the store appends after the scores)."""
    known = {*SCORE_COLUMNS, *RUN_METRICS}
    return [c for c in frame.columns if c not in known]


def _runs_by_cell(frame: pd.DataFrame | None) -> dict[tuple[str, str], tuple[RunScore, ...]]:
    if frame is None or frame.empty:
        return {}
    ordered = frame.sort_values(["metric_id", "item_id", "run_index"], kind="stable")
    values = ordered["value"].to_numpy(dtype=np.float64)
    records = zip(
        ordered["metric_id"].astype(str).tolist(),
        ordered["item_id"].astype(str).tolist(),
        [int(r) for r in ordered["run_index"]],
        [None if math.isnan(v) else v for v in values.tolist()],
        ordered["status"].astype(str).tolist(),
        ordered["reason"].astype(object).where(ordered["reason"].notna(), None).tolist(),
        ordered["trace_id"].astype(object).where(ordered["trace_id"].notna(), None).tolist(),
        strict=True,
    )
    cells: dict[tuple[str, str], list[RunScore]] = {}
    for metric, item, run, value, status, reason, trace in records:
        cells.setdefault((metric, item), []).append(RunScore(run, value, status, reason, trace))
    return {key: tuple(runs) for key, runs in cells.items()}


def _item_facts(frame: pd.DataFrame) -> dict[str, tuple[dict[str, str], str | None, str | None]]:
    """Per item: its slices, dataset and dataset version (first row of the item)."""
    if frame.empty:
        return {}
    first = frame.drop_duplicates("item_id")
    columns = slice_columns(frame)
    out = {}
    for row in first[["item_id", "dataset", "dataset_version", *columns]].to_dict("records"):
        slices = {c: str(row[c]) for c in columns if not pd.isna(row[c])}
        dataset = None if pd.isna(row["dataset"]) else str(row["dataset"])
        version = None if pd.isna(row["dataset_version"]) else str(row["dataset_version"])
        out[str(row["item_id"])] = (slices, dataset, version)
    return out


def item_changes(
    candidate: pd.DataFrame,
    baseline: pd.DataFrame | None,
    metric_ids: tuple[str, ...] | None = None,
) -> tuple[MetricChanges, ...]:
    """Every metric's items of the candidate (and the baseline), grouped and ranked.

    Args:
        candidate: The candidate's scores frame (``ScoreStore.read_frame``).
        baseline: The baseline's, or None (then every item is unpaired).
        metric_ids: The metrics in the order to show them (default: the candidate's, sorted).
    """
    ids = metric_ids or tuple(sorted(set(candidate["metric_id"].astype(str))))
    cand_cells, base_cells = _runs_by_cell(candidate), _runs_by_cell(baseline)
    facts = {**_item_facts(baseline if baseline is not None else candidate.iloc[:0])}
    facts.update(_item_facts(candidate))
    out = []
    for metric_id in ids:
        items = sorted(
            {i for m, i in cand_cells if m == metric_id}
            | {i for m, i in base_cells if m == metric_id}
        )
        groups: dict[str, list[ItemChange]] = {d: [] for d in DIRECTIONS}
        sign = -1.0 if lower_is_better(metric_id) else 1.0
        for item in items:
            c, b = cand_cells.get((metric_id, item), ()), base_cells.get((metric_id, item), ())
            slices, dataset, version = facts.get(item, ({}, None, None))
            direction = _direction(c, b, sign)
            groups[direction].append(
                ItemChange(metric_id, item, direction, _mean(c), _mean(b), c, b, slices,
                           dataset, version)
            )  # fmt: skip
        ranked = {
            d: tuple(sorted(g, key=functools.partial(_rank, d, sign=sign)))
            for d, g in groups.items()
        }
        out.append(MetricChanges(metric_id, ranked))
    return tuple(out)
