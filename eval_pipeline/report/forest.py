"""The forest plot of a gate report: delta and interval per metric and slice, against the margin.

One row per gated metric, then one per slice of that metric (indented), top to bottom in the
report's order. Each row draws candidate - baseline as a dot with its interval as a bar,
coloured by the row's verdict; the metric's margin is a dashed tick at -margin on its rows and
zero is a grey line, so a bar wholly right of its tick passes and one wholly left of it fails.
A floor failure is coloured apart (purple: it fails on the absolute floor, not on the
comparison, so its bar may well sit right of zero), and the floor is drawn on the delta axis
as a dash-dot tick at threshold - baseline mean: the delta the candidate needed to hold it.
A row without a comparison (first baseline, nothing scored) is labelled "no delta" at zero.
The legend names every mark.
Rendered headless with matplotlib's Agg backend (never a display).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from eval_pipeline.report.figures import VERDICT_COLOURS, figure_png

_ROW_INCHES = 0.32
FLOOR_COLOUR = "#8250df"
"""A fail on the floor (purple), apart from a fail on the comparison (red)."""
_BELOW_FLOOR = "below floor"
"""How the gate's reason says the floor broke (``gate.verdict``)."""


@dataclass(frozen=True)
class ForestRow:
    """One row of the plot: a metric (``slice_label`` empty) or one of its slices."""

    metric_id: str
    slice_label: str
    verdict: str
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    margin: float
    floor_delta: float | None = None
    floor_failed: bool = False

    @property
    def colour(self) -> str:
        """The row's colour: by verdict, and purple for a fail on the floor."""
        if self.floor_failed:
            return FLOOR_COLOUR
        return VERDICT_COLOURS.get(self.verdict, "#57606a")

    @property
    def label(self) -> str:
        """``tool_correctness`` or ``    intent=refund``."""
        return f"    {self.slice_label}" if self.slice_label else self.metric_id


def forest_rows(report: dict[str, Any]) -> list[ForestRow]:
    """The rows of a gate report's JSON: each metric, then each of its slices."""
    rows: list[ForestRow] = []
    for metric in report["metrics"]:
        margin, floor = float(metric["max_regression"]), metric.get("threshold")
        for s in [None, *metric.get("slices", [])]:
            entry = s or metric
            base = entry.get("baseline_mean")
            rows.append(
                ForestRow(
                    metric["metric_id"],
                    f"{s['slice']}={s['value']}" if s else "",
                    entry["verdict"],
                    entry["delta"],
                    entry["ci_low"],
                    entry["ci_high"],
                    margin,
                    None if floor is None or base is None else float(floor) - float(base),
                    entry["verdict"] == "fail" and _BELOW_FLOOR in str(entry.get("reason", "")),
                )
            )
    return rows


def _draw_row(axes: Any, y: int, row: ForestRow) -> None:
    colour = row.colour
    axes.plot([-row.margin, -row.margin], [y - 0.4, y + 0.4], ls="--", color="#cf222e", lw=1)
    if row.floor_delta is not None and (row.floor_failed or not row.slice_label):
        floor = row.floor_delta
        axes.plot([floor, floor], [y - 0.4, y + 0.4], ls="-.", color=FLOOR_COLOUR, lw=1.2)
    if row.delta is None:
        axes.annotate(
            "no delta",
            (0, y),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
            color=colour,
        )
        return
    if row.ci_low is not None and row.ci_high is not None:
        axes.plot([row.ci_low, row.ci_high], [y, y], color=colour, lw=2 if row.slice_label else 3)
    axes.plot([row.delta], [y], "o", color=colour, ms=4 if row.slice_label else 6)


def forest_figure(report: dict[str, Any], title: str = "") -> Figure:
    """The plot as a matplotlib Figure (no pyplot, so no display and no global state)."""
    rows = forest_rows(report)
    figure = Figure(figsize=(8, 1.2 + _ROW_INCHES * max(len(rows), 1)), layout="constrained")
    axes = figure.add_subplot()
    axes.axvline(0, color="#8c959f", lw=1)
    for y, row in enumerate(rows):
        _draw_row(axes, y, row)
    axes.set_yticks(range(len(rows)), [row.label for row in rows], fontsize=8)
    for tick, row in zip(axes.get_yticklabels(), rows, strict=True):
        tick.set_color(row.colour)
        tick.set_fontweight("normal" if row.slice_label else "bold")
    axes.set_ylim(len(rows) - 0.5, -0.5)
    axes.set_xlabel("delta = candidate - baseline (bar: interval)")
    legend = [axes.plot([], [], "o-", color=c, label=v)[0] for v, c in VERDICT_COLOURS.items()]
    legend.append(axes.plot([], [], "o-", color=FLOOR_COLOUR, label="fail: below floor")[0])
    legend.append(axes.plot([], [], ls="--", color="#cf222e", label="-margin")[0])
    floor_label = "floor (as a delta from the baseline mean)"
    legend.append(axes.plot([], [], ls="-.", color=FLOOR_COLOUR, label=floor_label)[0])
    legend.append(axes.plot([], [], color="#8c959f", label="no change")[0])
    axes.legend(
        handles=legend, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False
    )
    axes.set_title(title or f"gate verdict: {report['verdict']}", fontsize=10)
    return figure


def forest_png(report: dict[str, Any], title: str = "") -> bytes:
    """The plot as PNG bytes."""
    return figure_png(forest_figure(report, title))


def write_forest_png(report: dict[str, Any], target: Path, title: str = "") -> Path:
    """Write the plot to ``target`` (beside the gate report) and return the path."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(forest_png(report, title))
    return target
