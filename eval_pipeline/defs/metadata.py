"""Turn plain stage summaries into typed Dagster metadata (counts, Markdown tables, JSON).

Also the metadata of one gate check, laid out for a release manager reading the check's
partition page: the verdict first, then delta and interval against the margin, the floor,
missing scores by cause, power, every slice as a table and the worst items with their traces.
"""

import base64
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dagster as dg

from eval_pipeline.gate.decision import BudgetDecision, MetricDecision, number
from eval_pipeline.gate.reports import render_evidence_table, render_slice_table


def typed_metadata(values: Mapping[str, Any]) -> dict[str, dg.MetadataValue]:
    """Typed metadata: ints, floats, text, Markdown (keys ending ``_md``) and JSON."""
    typed: dict[str, dg.MetadataValue] = {}
    for key, value in values.items():
        if value is None:
            typed[key] = dg.MetadataValue.text("none")
        elif isinstance(value, bool):
            typed[key] = dg.MetadataValue.bool(value)
        elif isinstance(value, int):
            typed[key] = dg.MetadataValue.int(value)
        elif isinstance(value, float):
            typed[key] = dg.MetadataValue.float(value)
        elif isinstance(value, str) and key.endswith("_md"):
            typed[key.removesuffix("_md")] = dg.MetadataValue.md(value)
        elif isinstance(value, str):
            typed[key] = dg.MetadataValue.text(value)
        else:
            typed[key] = dg.MetadataValue.json(value)
    return typed


def image_metadata(name: str, png: Path) -> dict[str, dg.MetadataValue]:
    """A PNG as two entries: its path, and a Markdown image inlined as a data URI."""
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    return {
        name: dg.MetadataValue.path(str(png)),
        f"{name}_image": dg.MetadataValue.md(f"![{name}](data:image/png;base64,{data})"),
    }


def _signed(value: float | None) -> str:
    return "-" if number(value) is None else f"{value:+.4f}"


def interval_against_margin(m: MetricDecision) -> str:
    """``delta +0.0100 [-0.0200, +0.0400] vs margin -0.0500: lower bound above -margin``."""
    head = f"delta {_signed(m.delta)} [{_signed(m.ci_low)}, {_signed(m.ci_high)}]"
    head += f" vs margin -{m.max_regression:g}"
    low, high = number(m.ci_low), number(m.ci_high)
    if low is None or high is None:
        return f"{head}: no interval (nothing compared)"
    if low > -m.max_regression:
        return f"{head}: lower bound above -margin"
    if high < -m.max_regression:
        return f"{head}: upper bound below -margin"
    return f"{head}: interval straddles -margin"


def metric_check_metadata(m: MetricDecision) -> dict[str, Any]:
    """A metric's gate check: verdict, delta vs margin, floor, missing, power, slices, items."""
    power = m.power
    return {
        "verdict": m.verdict,
        "blocks_release": m.blocking,
        "delta_vs_margin": interval_against_margin(m),
        "delta": number(m.delta),
        "ci_low": number(m.ci_low),
        "ci_high": number(m.ci_high),
        "margin": m.max_regression,
        "floor": m.threshold,
        "candidate_mean": number(m.candidate_mean),
        "baseline_mean": number(m.baseline_mean),
        "missing": m.missing.total,
        "missing_by_cause": {
            "expected": m.missing.expected,
            "unscored": m.missing.unscored,
            "error": m.missing.error,
            "null": m.missing.null,
            "no_row": m.missing.absent,
        },
        "not_applicable_by_cause": dict(m.not_applicable),
        "power": None if power is None else power.note,
        "min_detectable_regression": None if power is None else power.min_detectable_regression,
        "slices_md": render_slice_table(m),
        "worst_items_md": render_evidence_table(m),
        "trace_ids": sorted({t for e in m.evidence for t in e.trace_ids}),
    }


def budget_check_metadata(b: BudgetDecision) -> dict[str, Any]:
    """A budget's gate check: verdict, value and interval against the limit, missing rows."""
    return {
        "verdict": b.verdict,
        "blocks_release": b.blocking,
        "value": number(b.value),
        "ci_low": number(b.ci_low),
        "ci_high": number(b.ci_high),
        "limit": b.limit,
        "baseline_value": number(b.baseline_value),
        "missing": b.missing,
    }
