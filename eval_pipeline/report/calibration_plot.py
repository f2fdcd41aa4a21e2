"""The judge's calibration against human labels, as a picture: each statistic with its interval.

The calibration stage stores, per judge and labelled set, accuracy, Cohen's kappa, balanced
accuracy and the false-pass / false-fail rates with percentile bootstrap intervals (see
``judges.calibration``). Verdicts are pass/fail, not probabilities, so a reliability diagram
does not apply: the plot is a dot-and-interval row per statistic (agreement above, error rates
below), the false-pass rate coloured by whether it is under the tier's ceiling, drawn as a red
dashed line on its row, with the confusion counts in the title. Per-slice rows follow when the
labelled set has slices. A statistic whose denominator is empty is labelled "n/a".
``agreement_html`` gives the same report as tables (``judges.agreement``'s rows): each
statistic with its interval, and the confusion matrix, which the plot can only name.
"""

import html
from typing import Any

from matplotlib.figure import Figure

from eval_pipeline.judges.agreement import INTERVAL_METHOD, confusion_rows, statistic_rows
from eval_pipeline.report.figures import CANDIDATE_COLOUR, VERDICT_COLOURS, figure_png

STATISTICS = (
    ("accuracy", "agreement (accuracy)"),
    ("balanced_accuracy", "balanced accuracy"),
    ("kappa", "Cohen's kappa"),
    ("false_pass_rate", "false-pass rate"),
    ("false_fail_rate", "false-fail rate"),
)
_ROW_INCHES = 0.34


def calibration_rows(calibration: dict[str, Any]) -> list[tuple[str, float | None, list[Any]]]:
    """(label, value, [low, high]) per statistic, then the false-pass rate of each slice."""
    intervals = calibration.get("intervals", {})
    rows = [
        (label, calibration.get(key), list(intervals.get(key) or [None, None]))
        for key, label in STATISTICS
    ]
    for column, values in sorted(calibration.get("slices", {}).items()):
        for value, sub in sorted(values.items()):
            rows.append(
                (
                    f"  false-pass {column}={value}",
                    sub.get("false_pass_rate"),
                    list(sub.get("intervals", {}).get("false_pass_rate") or [None, None]),
                )
            )
    return rows


def _colour(label: str, value: float | None, ceiling: float) -> str:
    if "false-pass" not in label or value is None:
        return CANDIDATE_COLOUR
    return VERDICT_COLOURS["pass" if value <= ceiling else "fail"]


def calibration_figure(calibration: dict[str, Any], title: str = "") -> Figure:
    """The plot of one stored calibration report (a ``calibrate_judge_on`` result)."""
    rows = calibration_rows(calibration)
    ceiling = float(calibration.get("ceiling", 0.0))
    figure = Figure(figsize=(8, 1.4 + _ROW_INCHES * len(rows)), layout="constrained")
    axes = figure.add_subplot()
    for y, (label, value, (low, high)) in enumerate(rows):
        colour = _colour(label, value, ceiling)
        if "false-pass" in label:
            axes.plot([ceiling, ceiling], [y - 0.4, y + 0.4], ls="--", color="#cf222e", lw=1)
        if value is None:
            axes.annotate("n/a", (0, y), xytext=(4, 0), textcoords="offset points", va="center")
            continue
        if low is not None and high is not None:
            axes.plot([low, high], [y, y], color=colour, lw=3)
        axes.plot([value], [y], "o", color=colour, ms=6)
        axes.annotate(
            f"{value:.2f}",
            (value, y),
            xytext=(0, 6),
            textcoords="offset points",
            fontsize=7,
            ha="center",
        )
    axes.set_yticks(range(len(rows)), [label for label, _, _ in rows], fontsize=8)
    axes.set_ylim(len(rows) - 0.5, -0.6)
    axes.set_xlim(min(-0.05, *(r[2][0] or 0 for r in rows)), 1.05)
    axes.axvline(0, color="#8c959f", lw=0.8)
    confidence = float(calibration.get("confidence", 0.95))
    axes.set_xlabel(
        f"value with {confidence:.0%} bootstrap interval (dashed: the tier's false-pass ceiling "
        f"{ceiling:g})",
        fontsize=8,
    )
    confusion = calibration.get("confusion", {})
    counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in confusion.items())
    axes.set_title(
        title
        or f"judge {calibration.get('judge_backend', '?')} on "
        f"{calibration.get('calibration_set', '?')}: n={calibration.get('n')}\n{counts}",
        fontsize=9,
    )
    return figure


def calibration_png(calibration: dict[str, Any], title: str = "") -> bytes:
    """The plot as PNG bytes."""
    return figure_png(calibration_figure(calibration, title))


def agreement_html(calibration: dict[str, Any]) -> str:
    """The agreement report as two HTML tables: statistics with intervals, confusion matrix."""
    e = html.escape
    stats = "".join(
        f"<tr><td>{e(label)}</td><td>{value}</td><td>{span}</td></tr>"
        for label, value, span in statistic_rows(calibration)
    )
    confusion = "".join(
        f"<tr><th>{who}</th><td>{hp}</td><td>{hf}</td></tr>"
        for who, hp, hf in confusion_rows(calibration)
    )
    confidence = float(calibration.get("confidence", 0.95))
    return (
        f'<table id="agreement"><caption>n = {e(str(calibration.get("n")))}; '
        f"{confidence:.0%} intervals: {e(INTERVAL_METHOD)}</caption>"
        f"<tr><th>statistic</th><th>value</th><th>interval</th></tr>{stats}</table>"
        '<table id="confusion"><caption>confusion matrix</caption>'
        f"<tr><th></th><th>human pass</th><th>human fail</th></tr>{confusion}</table>"
    )
