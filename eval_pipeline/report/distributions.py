"""Score distributions, candidate against baseline: one small histogram per gated metric.

Where the forest plot says *how much* a metric moved, this says *how*: a whole shift, a tail of
zeros on a few items, a binary metric flipping. Each panel is a histogram of the scored runs'
values (``status == "scored"``; missing and not-applicable runs are counted in the title, not
drawn), the candidate filled, the baseline outlined, each mean a vertical line and the floor a
dashed red one; the panel title is coloured by the metric's verdict. Scores in [0, 1] share ten
bins of 0.1, so the panels read alike.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from eval_pipeline.report.figures import (
    BASELINE_COLOUR,
    CANDIDATE_COLOUR,
    VERDICT_COLOURS,
    figure_png,
)

_COLUMNS = 3
_UNIT_BINS = np.linspace(0.0, 1.0, 11)


@dataclass(frozen=True)
class MetricScores:
    """One panel: the scored values of a gated metric in both builds, and its verdict."""

    metric_id: str
    verdict: str
    floor: float
    candidate: np.ndarray
    baseline: np.ndarray | None
    unscored: int


def scored_values(frame: pd.DataFrame, metric_id: str) -> np.ndarray:
    """The values of ``metric_id``'s scored runs (a versioned id ``m@2`` counts as ``m``)."""
    if frame.empty:
        return np.array([], dtype=float)
    metric = frame["metric_id"].astype(str).str.split("@").str[0]
    rows = frame[(metric == metric_id) & (frame["status"] == "scored")]
    return rows["value"].dropna().to_numpy(dtype=float)


def metric_scores(
    report: dict[str, Any], candidate: pd.DataFrame, baseline: pd.DataFrame | None
) -> list[MetricScores]:
    """One panel per gated metric of the gate report, in the report's order."""
    panels = []
    for m in report["metrics"]:
        values = scored_values(candidate, m["metric_id"])
        total = 0
        if not candidate.empty:
            total = int(
                (candidate["metric_id"].astype(str).str.split("@").str[0] == m["metric_id"]).sum()
            )
        panels.append(
            MetricScores(
                m["metric_id"],
                m["verdict"],
                float(m["threshold"]),
                values,
                None if baseline is None else scored_values(baseline, m["metric_id"]),
                total - len(values),
            )
        )
    return panels


def _bins(panel: MetricScores) -> np.ndarray:
    values = np.concatenate(
        [panel.candidate, *([] if panel.baseline is None else [panel.baseline])]
    )
    if values.size == 0 or (values.min() >= 0.0 and values.max() <= 1.0):
        return _UNIT_BINS
    return np.histogram_bin_edges(values, bins=10)


def _draw(axes: Any, panel: MetricScores) -> None:
    bins = _bins(panel)
    axes.hist(panel.candidate, bins=bins, color=CANDIDATE_COLOUR, alpha=0.55, label="candidate")
    if panel.baseline is not None and panel.baseline.size:
        axes.hist(
            panel.baseline,
            bins=bins,
            histtype="step",
            lw=1.6,
            color=BASELINE_COLOUR,
            label="baseline",
        )
        mean = float(panel.baseline.mean())
        axes.axvline(mean, color=BASELINE_COLOUR, lw=1.2, label="baseline mean")
    if panel.candidate.size:
        mean = float(panel.candidate.mean())
        axes.axvline(mean, color=CANDIDATE_COLOUR, lw=1.2, label="candidate mean")
    axes.axvline(panel.floor, color=VERDICT_COLOURS["fail"], ls="--", lw=1, label="floor")
    n_base = "-" if panel.baseline is None else str(panel.baseline.size)
    note = f" ({panel.unscored} not scored)" if panel.unscored else ""
    axes.set_title(
        f"{panel.metric_id}: {panel.verdict}",
        fontsize=9,
        color=VERDICT_COLOURS.get(panel.verdict, "#57606a"),
    )
    axes.set_xlabel(f"score (runs: {panel.candidate.size} vs {n_base}){note}", fontsize=7)
    axes.tick_params(labelsize=7)


def distribution_figure(panels: Sequence[MetricScores], title: str = "") -> Figure:
    """The small multiples: ``_COLUMNS`` panels a row, one legend, one title.

    Margins are fixed in inches rather than left to the constrained layout, which measured
    more than half the drawing time of a suite's eight panels (this runs once per gated build).
    """
    columns = max(1, min(_COLUMNS, len(panels)))
    rows = max(1, math.ceil(len(panels) / columns))
    width, height = 3.2 * columns, 0.8 + 2.3 * rows
    figure = Figure(figsize=(width, height))
    figure.subplots_adjust(
        left=0.45 / width,
        right=1 - 0.15 / width,
        top=1 - 0.75 / height,
        bottom=0.5 / height,
        wspace=0.22,
        hspace=0.55,
    )
    grid = figure.subplots(rows, columns, squeeze=False)
    for axes, panel in zip(grid.flat, panels, strict=False):
        _draw(axes, panel)
    for axes in list(grid.flat)[len(panels) :]:
        axes.set_visible(False)
    handles, labels = grid.flat[0].get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="upper right", fontsize=7, frameon=False)
    figure.suptitle(title or "score distributions (lines: means; dashed: floor)", fontsize=10)
    return figure


def distribution_png(
    report: dict[str, Any], candidate: pd.DataFrame, baseline: pd.DataFrame | None, title: str = ""
) -> bytes:
    """The small multiples of a gate report's metrics as PNG bytes."""
    return figure_png(distribution_figure(metric_scores(report, candidate, baseline), title))
