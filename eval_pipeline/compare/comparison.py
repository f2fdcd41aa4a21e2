"""A candidate compared with its baseline, item by item: the one entry point of ``compare``.

``compare_builds`` reads both builds' scores from the home, narrows them by the filters asked
for (metrics, one slice value), groups each metric's items by direction (``changes``), keeps
the ``limit`` largest effects of each direction asked for, and reads what those items need to
be judged: their references and each run's stored answer and tool calls (``details``). Counts
always cover every item, so a limit never hides how many items moved.
"""

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from eval_pipeline.compare.changes import (
    DIRECTIONS,
    ItemChange,
    MetricChanges,
    item_changes,
    slice_columns,
)
from eval_pipeline.compare.details import Reference, RunDetail, references, run_details
from eval_pipeline.home import Home
from eval_pipeline.scoring.store import ScoreStore

DEFAULT_LIMIT = 10
"""Items shown per metric and direction unless asked otherwise."""


class ComparisonInputError(ValueError):
    """A comparison that cannot be made as asked (no scores, an unknown metric or slice)."""


@dataclass(frozen=True)
class Comparison:
    """What changed from ``baseline`` to ``candidate``: per metric, the items and their runs."""

    candidate: str
    baseline: str | None
    metrics: tuple[MetricChanges, ...]
    references: dict[str, Reference] = field(default_factory=dict)
    details: dict[tuple[str, str], RunDetail] = field(default_factory=dict)
    filters: dict[str, Any] = field(default_factory=dict)

    def detail(self, side: str, trace_id: str | None) -> RunDetail | None:
        """The stored run behind a trace of the ``candidate`` or ``baseline`` side."""
        if trace_id is None:
            return None
        build = self.candidate if side == "candidate" else self.baseline
        return self.details.get((str(build), trace_id.lower()))

    def user_input(self, item: ItemChange) -> str | None:
        """The item's input as stored (redacted) in its first run's trace, else the dataset's."""
        for side, trace_id in item.trace_ids():
            detail = self.detail(side, trace_id)
            if detail is not None and detail.user_input:
                return detail.user_input
        reference = self.references.get(item.item_id)
        return reference.user_input if reference is not None else None

    def items(self) -> list[ItemChange]:
        """Every item shown, metric by metric."""
        return [item for m in self.metrics for item in m.items()]

    def traces(self) -> list[tuple[str, str]]:
        """``(build, trace id)`` of every run shown, each once, in display order."""
        seen: dict[tuple[str, str], None] = {}
        for item in self.items():
            for side, trace_id in item.trace_ids():
                build = self.candidate if side == "candidate" else str(self.baseline)
                seen[(build, trace_id)] = None
        return list(seen)

    def top_regressions(self, k: int) -> list[ItemChange]:
        """The ``k`` regressed items with the largest drops across metrics (missing first)."""
        regressed = [i for m in self.metrics for i in m.groups.get("regressed", ())]
        return sorted(regressed, key=lambda i: (i.missing == 0, i.delta or 0.0))[:k]


def parse_slice(text: str | None) -> tuple[str, str] | None:
    """``name=value`` -> ``(name, value)``.

    Raises:
        ComparisonInputError: not of that form.
    """
    if text is None:
        return None
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise ComparisonInputError(f"--slice {text!r}: expected NAME=VALUE, e.g. intent=refund")
    return name, value


def _narrow(
    frame: pd.DataFrame, build: str, metrics: tuple[str, ...], slice_: tuple[str, str] | None
) -> pd.DataFrame:
    known = sorted(set(frame["metric_id"].astype(str)))
    unknown = [m for m in metrics if m not in known]
    if unknown:
        raise ComparisonInputError(
            f"--metric {', '.join(unknown)}: build {build} has no scores of it "
            f"(its metrics: {', '.join(known)})"
        )
    if metrics:
        frame = frame[frame["metric_id"].isin(metrics)]
    if slice_ is not None:
        name, value = slice_
        if name not in slice_columns(frame):
            raise ComparisonInputError(
                f"--slice {name}={value}: build {build}'s items have no slice {name!r} "
                f"(its slices: {', '.join(slice_columns(frame)) or 'none'})"
            )
        frame = frame[frame[name].astype(str) == value]
    return frame


def compare_frames(
    candidate: pd.DataFrame,
    baseline: pd.DataFrame | None,
    *,
    names: tuple[str, str | None],
    metrics: tuple[str, ...] = (),
    slice_: tuple[str, str] | None = None,
    directions: tuple[str, ...] = DIRECTIONS,
    limit: int | None = DEFAULT_LIMIT,
) -> Comparison:
    """Compare two scores frames (no details read: see ``compare_builds``).

    Raises:
        ComparisonInputError: the candidate has no scores, or a metric or slice it lacks.
    """
    if candidate.empty:
        raise ComparisonInputError(f"build {names[0]} has no stored scores (score it first)")
    candidate = _narrow(candidate, names[0], metrics, slice_)
    if baseline is not None:
        baseline = _narrow(baseline, str(names[1]), (), None)
        baseline = baseline[baseline["metric_id"].isin(set(candidate["metric_id"]))]
        if slice_ is not None and slice_[0] in baseline.columns:
            baseline = baseline[baseline[slice_[0]].astype(str) == slice_[1]]
    changes = item_changes(candidate, baseline, metrics or None)
    filters = {
        "metric": list(metrics),
        "slice": f"{slice_[0]}={slice_[1]}" if slice_ else None,
        "direction": list(directions),
        "limit": limit,
    }
    return Comparison(
        names[0], names[1], tuple(m.top(limit, directions) for m in changes), filters=filters
    )


def compare_builds(
    home: Home,
    candidate: str,
    baseline: str | None,
    *,
    details: bool = True,
    **filters: Any,
) -> Comparison:
    """Compare ``candidate`` with ``baseline`` in ``home`` (filters: see ``compare_frames``).

    Raises:
        ComparisonInputError: the candidate (or the named baseline) has no stored scores, or
            a filter names a metric or slice the candidate lacks.
    """
    store = ScoreStore(home.store)
    base = store.read_frame(baseline) if baseline else None
    if baseline and base is not None and base.empty:
        raise ComparisonInputError(f"baseline {baseline} has no stored scores (score it first)")
    comparison = compare_frames(
        store.read_frame(candidate), base, names=(candidate, baseline), **filters
    )
    return with_details(home, comparison) if details else comparison


def with_details(home: Home, comparison: Comparison) -> Comparison:
    """``comparison`` with the references and stored runs of the items it shows."""
    candidate, baseline = comparison.candidate, comparison.baseline
    shown = comparison.items()
    wanted = {(i.item_id, i.dataset, i.dataset_version) for i in shown}
    runs: dict[tuple[str, str], RunDetail] = {}
    for side, build in (("candidate", candidate), ("baseline", baseline)):
        if build is None:
            continue
        ids = {t for i in shown for s, t in i.trace_ids() if s == side}
        runs.update(((build, t), d) for t, d in run_details(home, build, ids).items())
    return Comparison(
        candidate,
        baseline,
        comparison.metrics,
        references=references(home, sorted(wanted, key=str)),
        details=runs,
        filters=comparison.filters,
    )
