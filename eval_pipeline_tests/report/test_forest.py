"""The forest plot (``report/forest.py``) draws what the gate decided.

Contract: one row per gated metric and one per slice of it, in the report's order, each
coloured by its verdict, with the margin marked on every row; the PNG is a real image whose
height grows with the rows.
"""

import io
from pathlib import Path

from PIL import Image

from eval_pipeline.report.forest import (
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
    assert [t.get_color() for t in ticks] == [VERDICT_COLOURS[r.verdict] for r in rows]
    margins = [line for line in axes.get_lines() if line.get_linestyle() == "--"]
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
