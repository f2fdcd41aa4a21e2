"""Score distributions and the judge's calibration plot, drawn from real gate and judge data.

Modules: ``report/distributions.py`` and ``report/calibration_plot.py``.

Contract: one panel per gated metric in the report's order, titled with its verdict and coloured
by it, drawing the candidate's scored values (missing ones counted, not drawn) against the
baseline's; the calibration plot draws each statistic of a real calibration with its interval,
then each slice's false-pass rate, the false-pass rows coloured by the tier's ceiling, "n/a"
where a rate has no denominator.
"""

import re

import numpy as np
import pandas as pd

from eval_pipeline.judges.agreement import agreement_markdown
from eval_pipeline.judges.calibration import calibrate
from eval_pipeline.report.calibration_plot import (
    agreement_html,
    calibration_figure,
    calibration_rows,
)
from eval_pipeline.report.distributions import distribution_figure, metric_scores
from eval_pipeline.report.figures import VERDICT_COLOURS
from eval_pipeline_tests.report.gate_reports import real_gate_frames, real_gate_report


def test_one_panel_per_metric_with_the_scored_values_of_both_builds() -> None:
    report = real_gate_report()
    candidate, baseline = (f.assign(status="scored") for f in real_gate_frames())
    broken = candidate.index[candidate["metric_id"] == "task_completion"][:3]
    candidate.loc[broken, ["status", "value"]] = ["error", np.nan]
    panels = metric_scores(report, candidate, baseline)
    assert [p.metric_id for p in panels] == [m["metric_id"] for m in report["metrics"]]
    by_id = {p.metric_id: p for p in panels}
    task = by_id["task_completion"]
    assert task.unscored == 3 and task.candidate.size == 37
    assert task.baseline is not None and task.baseline.size == 40
    # 20 refund items collapsed to 0.1; of the 3 errored items (0, 1, 2) item 1 is a refund.
    assert np.sum(np.isclose(task.candidate, 0.1)) == 19

    figure = distribution_figure(panels)
    shown = [a for a in figure.axes if a.get_visible()]
    assert [a.get_title() for a in shown] == [f"{p.metric_id}: {p.verdict}" for p in panels]
    assert [a.title.get_color() for a in shown] == [VERDICT_COLOURS[p.verdict] for p in panels]
    alone = metric_scores(report, candidate, None)
    assert all(p.baseline is None for p in alone)
    legend = {t.get_text() for t in distribution_figure(alone).legends[0].get_texts()}
    assert legend == {"candidate", "candidate mean", "floor"}  # every mark drawn, named
    both = {t.get_text() for t in figure.legends[0].get_texts()}
    assert both == {"candidate", "candidate mean", "baseline", "baseline mean", "floor"}


def _calibration(judge_wrong_on: set[int], n: int = 40) -> dict[str, object]:
    human = [k % 2 == 0 for k in range(n)]
    judge = [h != (k in judge_wrong_on) for k, h in enumerate(human)]
    tools = ["refund" if k % 4 < 2 else "lookup" for k in range(n)]
    labels = pd.DataFrame({"item_id": range(n), "label": human, "tool": tools})
    verdicts = pd.DataFrame({"item_id": range(n), "verdict": judge})
    report = calibrate(labels, verdicts, slice_columns=["tool"], n_resamples=200).to_json()
    return {**report, "ceiling": 0.1, "judge_backend": "offline", "calibration_set": "set"}


def test_the_calibration_plot_draws_each_statistic_and_colours_false_pass_by_the_ceiling() -> None:
    good = _calibration(judge_wrong_on={1})  # one human-failed item passed: 1/20 false passes
    bad = _calibration(judge_wrong_on={1, 3, 5, 7, 9})  # 5/20
    rows = calibration_rows(good)
    assert [label for label, _, _ in rows][:5] == [
        "agreement (accuracy)",
        "balanced accuracy",
        "Cohen's kappa",
        "false-pass rate",
        "false-fail rate",
    ]
    assert [label.strip() for label, _, _ in rows[5:]] == [
        "false-pass tool=lookup",
        "false-pass tool=refund",
    ]
    assert rows[3][1] == good["false_pass_rate"] == 0.05
    for report, verdict in ((good, "pass"), (bad, "fail")):
        axes = calibration_figure(report).axes[0]
        dots = [line for line in axes.get_lines() if line.get_marker() == "o"]
        assert dots[3].get_color() == VERDICT_COLOURS[verdict]

    nobody_failed = {**good, "false_pass_rate": None, "slices": {}}
    texts = [t.get_text() for t in calibration_figure(nobody_failed).axes[0].texts]
    assert "n/a" in texts


def test_the_agreement_tables_hold_every_statistic_and_the_confusion_matrix() -> None:
    report = _calibration(judge_wrong_on={1, 2, 3})  # 2 false passes of 20, 1 false fail of 20
    page = agreement_html(report)
    cells = re.findall(r"<t[dh]>([^<]*)</t[dh]>", page)
    confusion = cells[cells.index("human fail") + 1 :]
    assert confusion == ["judge pass", "19", "2", "judge fail", "1", "18"]
    assert report["confusion"] == {
        "judge_pass_human_pass": 19,
        "judge_pass_human_fail": 2,
        "judge_fail_human_pass": 1,
        "judge_fail_human_fail": 18,
    }
    low, high = report["intervals"]["false_pass_rate"]  # type: ignore[index]
    assert f"[{low:.3f}, {high:.3f}]" in cells and "0.100" in cells
    assert "percentile bootstrap" in page
    markdown = agreement_markdown(report)
    assert "| judge pass | 19 | 2 |" in markdown
    assert (
        f"| false-pass rate (judge passes, human failed) | 0.100 | [{low:.3f}, {high:.3f}] |"
        in (markdown)
    )
