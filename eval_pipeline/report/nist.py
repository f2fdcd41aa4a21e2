"""The NIST AI RMF section: which evidence in this report supports which framework outcome.

The mapping is data (``nist_ai_rmf.yaml`` beside this module): each entry cites a function and
subcategory id of AI RMF 1.0, the evidence this report holds for it (a section of the page,
``EVIDENCE``), the risk tiers it applies to, and how the evidence supports it. The section
lists the entries of the suite's tier, each with a link to its evidence and whether this
report actually holds it (a suite without a judge has no calibration to show; a metric-bound
entry needs the suite to gate that metric).
"""

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from eval_pipeline.package_data import package_path
from eval_pipeline.report.html_parts import e
from eval_pipeline.report.inputs import ReportInputs

FUNCTIONS = ("GOVERN", "MAP", "MEASURE", "MANAGE")


EVIDENCE = {
    "verdict": ("verdict", lambda i: True),
    "risk_tier": ("facts", lambda i: bool(i.report.get("tier"))),
    "metrics": ("metrics", lambda i: bool(i.report["metrics"])),
    "slices": ("slices", lambda i: any(m.get("slices") for m in i.report["metrics"])),
    "budgets": ("budgets", lambda i: bool(i.report.get("budgets"))),
    "evidence": ("evidence", lambda i: bool(i.evidence_trace_ids)),
    "traces": ("evidence", lambda i: bool(i.traces)),
    "forest": ("forest-plot", lambda i: bool(i.report["metrics"])),
    "distributions": ("distribution-plot", lambda i: not i.candidate.empty),
    "calibration": ("calibration", lambda i: i.calibration is not None),
    "dataset_validation": ("facts", lambda i: "dataset_validation" in i.report),
}
"""Evidence name -> (the id of its place in the page, whether a report holds it)."""


@dataclass(frozen=True)
class RmfEntry:
    """One line of the mapping."""

    function: str
    id: str
    title: str
    evidence: str
    tiers: tuple[str, ...]
    supports: str
    requires_metric: str | None = None


class MappingError(ValueError):
    """The mapping file is malformed (names the file and the entry)."""


def _entry(path: Path, index: int, raw: dict[str, Any]) -> RmfEntry:
    where = f"{path}: entries[{index}]"
    try:
        entry = RmfEntry(
            function=str(raw["function"]),
            id=str(raw["id"]),
            title=str(raw["title"]),
            evidence=str(raw["evidence"]),
            tiers=tuple(raw["tiers"]),
            supports=" ".join(str(raw["supports"]).split()),
            requires_metric=raw.get("requires_metric"),
        )
    except KeyError as exc:
        raise MappingError(f"{where}: missing field {exc.args[0]!r}") from exc
    if entry.function not in FUNCTIONS or not entry.id.startswith(entry.function + " "):
        raise MappingError(f"{where}: {entry.id!r} is not a subcategory of {entry.function!r}")
    if entry.evidence not in EVIDENCE:
        raise MappingError(f"{where}: unknown evidence {entry.evidence!r} ({sorted(EVIDENCE)})")
    return entry


def load_mapping(path: Path | None = None) -> tuple[str, tuple[RmfEntry, ...]]:
    """The framework's name and the entries of the mapping file (the shipped one by default)."""
    from ruamel.yaml import YAML

    path = path or package_path("eval_pipeline.report", "nist_ai_rmf.yaml")
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    entries = tuple(_entry(path, k, raw) for k, raw in enumerate(data["entries"]))
    return str(data["framework"]), entries


@cache
def shipped_mapping() -> tuple[str, tuple[RmfEntry, ...]]:
    """The shipped mapping, read once."""
    return load_mapping()


def entries_for(inputs: ReportInputs) -> list[tuple[RmfEntry, bool]]:
    """The entries of the report's tier, each with whether the report holds its evidence."""
    tier = str(inputs.report.get("tier", ""))
    gated = {m["metric_id"] for m in inputs.report["metrics"]}
    chosen = []
    for entry in shipped_mapping()[1]:
        if tier not in entry.tiers:
            continue
        if entry.requires_metric and entry.requires_metric not in gated:
            continue
        chosen.append((entry, EVIDENCE[entry.evidence][1](inputs)))
    return chosen


def nist_section(inputs: ReportInputs) -> str:
    """The report's NIST AI RMF section (a table ordered Govern, Map, Measure, Manage)."""
    framework, _ = shipped_mapping()
    chosen = entries_for(inputs)
    chosen.sort(key=lambda pair: FUNCTIONS.index(pair[0].function))
    rows = []
    for entry, held in chosen:
        target = EVIDENCE[entry.evidence][0]
        status = "in this report" if held else "not in this report"
        rows.append(
            f"<tr><td>{e(entry.function)}</td><td><b>{e(entry.id)}</b> {e(entry.title)}</td>"
            f'<td><a href="#{target}">{e(entry.evidence)}</a> ({status})</td>'
            f"<td>{e(entry.supports)}</td></tr>"
        )
    tier = e(inputs.report.get("tier", "-"))
    return (
        f'<section id="nist"><h2>NIST AI RMF: evidence for tier {tier}</h2>'
        f"<p>Mapping to {e(framework)} (<code>eval_pipeline/report/nist_ai_rmf.yaml</code>). "
        "The evidence supports these outcomes; it does not achieve them alone.</p>"
        '<table id="nist-table"><tr><th>function</th><th>subcategory</th><th>evidence</th>'
        f"<th>how it supports it</th></tr>{''.join(rows)}</table></section>"
    )
