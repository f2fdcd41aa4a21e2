"""The trend plot: each gated metric's mean and interval over the builds of the suite.

One panel per metric, builds left to right in registration order. Each build is a dot (its
mean over items) with its 95% interval as a bar, coloured by the metric's gate verdict on
that build (grey: never gated); the suite's pinned baseline is a square, the metric's floor a
dashed red line, and the report's own build is labelled in bold. A legend names every mark.
"""

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from eval_pipeline.compare.history import HistoryPoint
from eval_pipeline.report.figures import VERDICT_COLOURS, figure_png

NOT_GATED = "#8c959f"


def _legend() -> list[Line2D]:
    marks = [
        Line2D([], [], marker="o", color=c, label=f"gate verdict: {v}")
        for v, c in VERDICT_COLOURS.items()
    ]
    marks.append(Line2D([], [], marker="o", color=NOT_GATED, label="not gated"))
    marks.append(
        Line2D([], [], marker="s", ls="", mfc="none", mec="black", label="pinned baseline")
    )
    marks.append(Line2D([], [], ls="--", color="#cf222e", label="floor (threshold)"))
    marks.append(Line2D([], [], color="black", lw=2, label="mean, 95% interval"))
    return marks


def history_figure(
    history: Mapping[str, Sequence[HistoryPoint]],
    floors: Mapping[str, float],
    build: str = "",
) -> Figure:
    """The figure: one panel per metric with at least one point."""
    shown = [(m, pts) for m, pts in history.items() if pts]
    figure = Figure(figsize=(9, 0.6 + 2.2 * max(len(shown), 1)), layout="constrained")
    if not shown:
        figure.text(0.5, 0.5, "no scored builds of this suite", ha="center")
        return figure
    axes_list = figure.subplots(len(shown), 1, squeeze=False)[:, 0]
    for axes, (metric, points) in zip(axes_list, shown, strict=True):
        for x, p in enumerate(points):
            colour = VERDICT_COLOURS.get(p.verdict or "", NOT_GATED)
            if p.ci_low is not None and p.ci_high is not None:
                axes.plot([x, x], [p.ci_low, p.ci_high], color=colour, lw=2)
            if p.mean is not None:
                axes.plot([x], [p.mean], "o", color=colour, ms=6)
            if p.pinned:
                axes.plot([x], [p.mean], "s", mfc="none", mec="black", ms=12)
        if metric in floors:
            axes.axhline(floors[metric], ls="--", color="#cf222e", lw=1)
        axes.set_xticks(range(len(points)), [p.build for p in points], fontsize=7, rotation=20)
        for tick, p in zip(axes.get_xticklabels(), points, strict=True):
            tick.set_fontweight("bold" if p.build == build else "normal")
            tick.set_horizontalalignment("right")
        axes.set_ylabel(metric, fontsize=8)
        axes.set_ylim(-0.05, 1.05)
    axes_list[0].legend(
        handles=_legend(), loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False
    )
    axes_list[0].set_title("each metric over the suite's builds", fontsize=10)
    return figure


def history_png(
    history: Mapping[str, Sequence[HistoryPoint]], floors: Mapping[str, float], build: str = ""
) -> bytes:
    """The figure as PNG bytes."""
    return figure_png(history_figure(history, floors, build))
