"""The forest plot (``report/forest.py``) draws what the gate decided.

Contract: one row per gated metric and one per slice of it, in the report's order, each
coloured by its verdict, with the margin marked on every row; the PNG is a real image whose
height grows with the rows.
"""

import io
from pathlib import Path

import pytest
from PIL import Image

from eval_pipeline.report.forest import (
    FLOOR_COLOUR,
    VERDICT_COLOURS,
    forest_figure,
    forest_rows,
    write_forest_png,
)
from eval_pipeline_tests.report.gate_reports import real_gate_report


def test_one_row_per_metric_and_slice_coloured_by_verdict() -> None:
    report = real_gate_report()
    expected = [
        (m["metric_id"], f"{s['slice']}={s['value']}" if s else "", (s or m)["verdict"])
        for m in report["metrics"]
        for s in [None, *m["slices"]]
    ]
    assert len(expected) == 6
    rows = forest_rows(report)
    assert [(r.metric_id, r.slice_label, r.verdict) for r in rows] == expected
    assert {r.verdict for r in rows} >= {"pass", "fail"}

    axes = forest_figure(report).axes[0]
    ticks = axes.get_yticklabels()
    assert [t.get_text().strip() for t in ticks] == [r.slice_label or r.metric_id for r in rows]
    assert [t.get_color() for t in ticks] == [
        FLOOR_COLOUR if r.floor_failed else VERDICT_COLOURS[r.verdict] for r in rows
    ]
    drawn = [line for line in axes.get_lines() if len(line.get_xdata())]  # not legend handles
    margins = [line for line in drawn if line.get_linestyle() == "--"]
    assert len(margins) == len(rows)
    assert all(line.get_xdata()[0] == -0.05 for line in margins)


def test_the_png_is_an_image_whose_height_follows_the_rows(tmp_path: Path) -> None:
    report = real_gate_report()
    full = write_forest_png(report, tmp_path / "gates" / "b.forest.png")
    one_metric = {**report, "metrics": [{**report["metrics"][0], "slices": []}]}
    small = write_forest_png(one_metric, tmp_path / "gates" / "small.forest.png")
    with Image.open(io.BytesIO(full.read_bytes())) as big, Image.open(small) as little:
        assert big.format == "PNG" and little.format == "PNG"
        assert big.height > little.height


def test_a_floor_failure_is_drawn_against_the_floor_and_every_mark_has_a_legend() -> None:
    report = real_gate_report()
    task = next(m for m in report["metrics"] if m["metric_id"] == "task_completion")
    # A candidate that holds against the baseline but sits under its floor.
    floor_failed = {**task, "verdict": "fail", "delta": 0.01, "ci_low": -0.02, "ci_high": 0.04,
                    "baseline_mean": 0.45, "threshold": 0.5, "slices": [],
                    "reason": "mean 0.4600 below floor 0.5; +0.0100 within margin"}  # fmt: skip
    rows = forest_rows({**report, "metrics": [floor_failed]})
    (row,) = rows
    assert row.floor_failed and row.floor_delta == pytest.approx(0.05)
    axes = forest_figure({**report, "metrics": [floor_failed]}).axes[0]
    assert axes.get_yticklabels()[0].get_color() == FLOOR_COLOUR
    drawn = [line for line in axes.get_lines() if len(line.get_xdata())]
    floors = [line for line in drawn if line.get_linestyle() == "-."]
    assert [line.get_xdata()[0] for line in floors] == [pytest.approx(0.05)]
    labels = {t.get_text() for t in axes.get_legend().get_texts()}
    assert labels >= {"pass", "fail", "inconclusive", "fail: below floor", "-margin",
                      "floor (as a delta from the baseline mean)", "no change"}  # fmt: skip
