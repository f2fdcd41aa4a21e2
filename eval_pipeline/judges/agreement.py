"""One label set's agreement report laid out for people: statistics and the confusion matrix.

The statistics are ``judges.calibration``'s (percentile bootstrap intervals over items); this
module only arranges a stored report (``CalibrationReport.to_json`` plus the calibration
stage's fields) into rows, so the CLI, the Dagster asset and the HTML report show the same
figures in the same order. A statistic whose denominator is empty reads "n/a".
"""

from typing import Any

from eval_pipeline.judges.calibration import INTERVAL_METHOD

STATISTICS = (
    ("accuracy", "accuracy"),
    ("balanced_accuracy", "balanced accuracy"),
    ("kappa", "Cohen's kappa"),
    ("false_pass_rate", "false-pass rate (judge passes, human failed)"),
    ("false_fail_rate", "false-fail rate (judge fails, human passed)"),
)


def _figure(value: Any) -> str:
    return "n/a" if value is None else f"{float(value):.3f}"


def statistic_rows(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(label, value, ``[low, high]``) per statistic, formatted."""
    intervals = report.get("intervals", {})
    rows = []
    for key, label in STATISTICS:
        low, high = intervals.get(key) or (None, None)
        span = "n/a" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"
        rows.append((label, _figure(report.get(key)), span))
    return rows


def confusion_rows(report: dict[str, Any]) -> list[tuple[str, int, int]]:
    """The confusion matrix as (judge decision, human pass, human fail) rows."""
    c = report.get("confusion", {})
    return [
        (
            "judge pass",
            int(c.get("judge_pass_human_pass", 0)),
            int(c.get("judge_pass_human_fail", 0)),
        ),
        (
            "judge fail",
            int(c.get("judge_fail_human_pass", 0)),
            int(c.get("judge_fail_human_fail", 0)),
        ),
    ]


def agreement_markdown(report: dict[str, Any]) -> str:
    """The report as two Markdown tables (statistics with intervals, then the confusion matrix)."""
    confidence = float(report.get("confidence", 0.95))
    lines = [
        f"n = {report.get('n')} (missing verdicts: {report.get('missing_verdicts', 0)}); "
        f"{confidence:.0%} intervals: {INTERVAL_METHOD}",
        "",
        "| statistic | value | interval |",
        "|---|---|---|",
        *(f"| {label} | {value} | {span} |" for label, value, span in statistic_rows(report)),
        "",
        "| | human pass | human fail |",
        "|---|---|---|",
        *(f"| {who} | {hp} | {hf} |" for who, hp, hf in confusion_rows(report)),
    ]
    return "\n".join(lines)
