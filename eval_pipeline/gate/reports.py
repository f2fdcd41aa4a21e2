"""Renderings of a gate report: plain text, Markdown, JSON and JUnit XML.

One report, four readers: text for terminals and logs, Markdown for pull-request comments and CI
summaries, JSON for machines (the **contract** shape of docs/DESIGN.md section 9), JUnit XML for CI
test reporters. Every rendering says the same thing: the verdict, whether it blocks under the
tier, one line or row per metric and budget, and the warnings.
"""

import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable

from eval_pipeline.gate.decision import GateReport, MetricDecision

_ICON = {"pass": "pass", "fail": "**FAIL**", "inconclusive": "_inconclusive_"}


def _fmt(value: float | None, signed: bool = False) -> str:
    """A number with 4 decimals, or ``-`` when absent (never ``nan``)."""
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _outcome(report: GateReport) -> str:
    """The verdict and the tier, named once: ``PASS (tier low)``, ``INCONCLUSIVE (blocks ...)``."""
    if report.verdict == "pass":
        return f"PASS (tier {report.tier})"
    if report.verdict == "fail":
        return f"FAIL (tier {report.tier})"
    if report.blocking:
        return f"INCONCLUSIVE (blocks under tier {report.tier})"
    return f"INCONCLUSIVE (passes with warnings under tier {report.tier})"


FIRST_BASELINE_NOTE = "first baseline: no baseline compared, floors and budgets only"


def _causes(m: MetricDecision) -> str:
    """``no hand-off expected and none made 12, ...``."""
    return ", ".join(f"{cause} {count}" for cause, count in sorted(m.not_applicable.items()))


def _not_applicable(m: MetricDecision) -> str:
    """``not applicable 12 (no hand-off expected and none made 12)``."""
    return f"not applicable {m.not_applicable_total} ({_causes(m)})"


def _metric_lines(m: MetricDecision) -> list[str]:
    lines = [
        f"  {m.verdict.upper():<12} {m.metric_id}: candidate {_fmt(m.candidate_mean)} "
        f"baseline {_fmt(m.baseline_mean)} delta {_fmt(m.delta, True)} "
        f"[{_fmt(m.ci_low, True)}, {_fmt(m.ci_high, True)}] "
        f"floor {m.threshold:g} margin {m.max_regression:g} missing {m.missing.total}",
        f"               {m.reason}",
    ]
    if m.not_applicable:
        lines.append(f"               {_not_applicable(m)}")
    lines.extend(
        f"               slice {s.slice}={s.value}: {s.verdict} delta {_fmt(s.delta, True)} "
        f"[{_fmt(s.ci_low, True)}, {_fmt(s.ci_high, True)}] ({s.n_items} items)"
        for s in m.slices
        if s.verdict == "fail"
    )
    if m.power is not None:
        lines.append(f"               power: {m.power.note}")
    if m.verdict != "pass":
        for e in m.evidence:
            lines.append(
                f"               evidence {e.item_id}: candidate {_fmt(e.candidate_mean)} "
                f"baseline {_fmt(e.baseline_mean)} traces{'' if e.trace_ids else ' -'}"
            )
            lines.extend(
                f"                 {' '.join(e.trace_ids[i : i + TRACES_PER_LINE])}"
                for i in range(0, len(e.trace_ids), TRACES_PER_LINE)
            )
    return lines


TRACES_PER_LINE = 3
"""Evidence trace ids per line: whole ids, never past ~120 columns (a terminal wraps there)."""


def _headline(report: GateReport, candidate: str | None, baseline: str | None) -> str:
    """``gate: FAIL (tier medium): candidate B vs baseline A; failing: m1, m2``."""
    line = f"gate: {_outcome(report)}"
    if candidate is not None:
        line += f": candidate {candidate} vs " + (
            "no baseline" if report.first_baseline else f"baseline {baseline or '-'}"
        )
    failing = [m.metric_id for m in report.metrics if m.verdict == "fail"]
    failing += [b.budget for b in report.budgets if b.verdict == "fail"]
    if failing:
        line += f"; failing: {', '.join(failing)}"
    if report.first_baseline:
        line += f"; {FIRST_BASELINE_NOTE}"
    return line


def render_text(
    report: GateReport, *, candidate: str | None = None, baseline: str | None = None
) -> str:
    """The report as plain text: verdict, one block per metric and budget, warnings.

    The first line holds what a CI log reader needs: the verdict, the candidate and baseline
    compared (builds or score files, when given) and every failing metric and budget.
    """
    lines = [_headline(report, candidate, baseline), "metrics:"]
    for metric in report.metrics:
        lines.extend(_metric_lines(metric))
    if report.budgets:
        lines.append("budgets:")
    lines.extend(
        f"  {b.verdict.upper():<12} {b.budget}: {_fmt(b.value)} "
        f"[{_fmt(b.ci_low)}, {_fmt(b.ci_high)}] limit {b.limit:g}: {b.reason}"
        for b in report.budgets
    )
    if report.warnings:
        lines.append("warnings:")
        lines.extend(f"  - {w}" for w in report.warnings)
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(title: str, header: str, align: str, rows: list[str]) -> list[str]:
    """A Markdown section with one table, or nothing when it has no rows."""
    return ["", f"### {title}", "", header, align, *rows] if rows else []


def render_markdown(report: GateReport) -> str:
    """The report as Markdown: a metrics table, slice and evidence tables, budgets, warnings."""
    note = f"{FIRST_BASELINE_NOTE[0].upper()}{FIRST_BASELINE_NOTE[1:]}."
    out = [
        f"## Release gate: {_outcome(report)}",
        "",
        note if report.first_baseline else "Candidate compared with its baseline.",
        "",
        "| metric | verdict | candidate | baseline | delta | interval | floor | margin "
        "| missing | reason |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    out.extend(
        f"| `{m.metric_id}` | {_ICON[m.verdict]} | {_fmt(m.candidate_mean)} "
        f"| {_fmt(m.baseline_mean)} | {_fmt(m.delta, True)} "
        f"| [{_fmt(m.ci_low, True)}, {_fmt(m.ci_high, True)}] | {m.threshold:g} "
        f"| {m.max_regression:g} | {m.missing.total} | {_cell(m.reason)} |"
        for m in report.metrics
    )
    out += _table(
        "Slices that collapsed",
        "| metric | slice | candidate | baseline | delta | interval | items |",
        "|---|---|---:|---:|---:|---|---:|",
        [
            f"| `{m.metric_id}` | {s.slice}={_cell(s.value)} | {_fmt(s.candidate_mean)} "
            f"| {_fmt(s.baseline_mean)} | {_fmt(s.delta, True)} "
            f"| [{_fmt(s.ci_low, True)}, {_fmt(s.ci_high, True)}] | {s.n_items} |"
            for m in report.metrics
            for s in m.slices
            if s.verdict == "fail"
        ],
    )
    out += _table(
        "Evidence (worst items)",
        "| metric | item | candidate | baseline | traces |",
        "|---|---|---:|---:|---|",
        [
            f"| `{m.metric_id}` | `{_cell(e.item_id)}` | {_fmt(e.candidate_mean)} "
            f"| {_fmt(e.baseline_mean)} | {', '.join(f'`{t}`' for t in e.trace_ids) or '-'} |"
            for m in report.metrics
            if m.verdict != "pass"
            for e in m.evidence
        ],
    )
    out += _table(
        "Not applicable (left out of the means, not missing)",
        "| metric | rows | causes |",
        "|---|---:|---|",
        [
            f"| `{m.metric_id}` | {m.not_applicable_total} | {_cell(_causes(m))} |"
            for m in report.metrics
            if m.not_applicable
        ],
    )
    out += _table(
        "Budgets",
        "| budget | verdict | value | interval | limit | reason |",
        "|---|---|---:|---|---:|---|",
        [
            f"| `{b.budget}` | {_ICON[b.verdict]} | {_fmt(b.value)} "
            f"| [{_fmt(b.ci_low)}, {_fmt(b.ci_high)}] | {b.limit:g} | {_cell(b.reason)} |"
            for b in report.budgets
        ],
    )
    out += _table(
        "Power",
        "| metric | min detectable regression | margin | note |",
        "|---|---:|---:|---|",
        [
            f"| `{m.metric_id}` | {_fmt(m.power.min_detectable_regression)} "
            f"| {m.max_regression:g} | {_cell(m.power.note)} |"
            for m in report.metrics
            if m.power is not None
        ],
    )
    if report.warnings:
        out += ["", "### Warnings", ""]
        out.extend(f"- {_cell(w)}" for w in report.warnings)
    return "\n".join(out) + "\n"


def render_json(report: GateReport) -> str:
    """The report as indented JSON text."""
    return json.dumps(report.to_json(), indent=2, sort_keys=False) + "\n"


def _case(
    suite: ET.Element,
    classname: str,
    name: str,
    verdict: str,
    blocking: bool,
    reason: str,
    note: str = "",
) -> None:
    """One testcase: a blocking decision fails; an allowed non-pass keeps its warning.

    ``note`` (a first baseline) is written on every passing case too.
    """
    case = ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")
    if blocking:
        failure = ET.SubElement(case, "failure", message=f"{verdict}: {reason}", type=verdict)
        failure.text = reason
    elif verdict != "pass":
        ET.SubElement(case, "system-out").text = f"{verdict} (allowed by tier): {reason}"
    elif note:
        ET.SubElement(case, "system-out").text = f"{note}: {reason}"


def render_junit(report: GateReport, suite_name: str = "release-gate") -> str:
    """The report as a JUnit XML document: one testcase per metric and per budget.

    A blocking decision is a ``<failure>``; an inconclusive result the tier lets through passes
    with its warning in ``<system-out>``.
    """
    tests = len(report.metrics) + len(report.budgets)
    failures = sum(m.blocking for m in report.metrics) + sum(b.blocking for b in report.budgets)
    root = ET.Element("testsuites", name=suite_name, tests=str(tests), failures=str(failures))
    suite = ET.SubElement(
        root,
        "testsuite",
        name=suite_name,
        tests=str(tests),
        failures=str(failures),
        errors="0",
        skipped="0",
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="verdict", value=report.verdict)
    ET.SubElement(properties, "property", name="tier", value=report.tier)
    ET.SubElement(
        properties, "property", name="first_baseline", value=str(report.first_baseline).lower()
    )
    note = FIRST_BASELINE_NOTE if report.first_baseline else ""
    for m in report.metrics:
        _case(suite, f"{suite_name}.metrics", m.metric_id, m.verdict, m.blocking, m.reason, note)
    for b in report.budgets:
        _case(suite, f"{suite_name}.budgets", b.budget, b.verdict, b.blocking, b.reason, note)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


RENDERERS: dict[str, Callable[[GateReport], str]] = {
    "text": render_text,
    "markdown": render_markdown,
    "json": render_json,
    "junit": render_junit,
}
"""Report renderers by ``--format`` name."""


def render_slice_table(m: MetricDecision) -> str:
    """Every slice of one metric as a Markdown table (passing ones too), or a line saying none."""
    if not m.slices:
        return f"No slices compared for `{m.metric_id}`.\n"
    rows = [
        f"| {s.slice}={_cell(s.value)} | {_ICON[s.verdict]} | {_fmt(s.candidate_mean)} "
        f"| {_fmt(s.baseline_mean)} | {_fmt(s.delta, True)} "
        f"| [{_fmt(s.ci_low, True)}, {_fmt(s.ci_high, True)}] | {s.n_items} | {_cell(s.reason)} |"
        for s in m.slices
    ]
    header = [
        "| slice | verdict | candidate | baseline | delta | interval | items | reason |",
        "|---|---|---:|---:|---:|---|---:|---|",
    ]
    return "\n".join([*header, *rows]) + "\n"


def render_evidence_table(m: MetricDecision) -> str:
    """The metric's worst items with their trace ids as a Markdown table, or a line saying none."""
    if not m.evidence:
        return f"No evidence items for `{m.metric_id}`.\n"
    rows = [
        f"| `{_cell(e.item_id)}` | {_fmt(e.candidate_mean)} | {_fmt(e.baseline_mean)} "
        f"| {_fmt(e.delta, True)} | {', '.join(f'`{t}`' for t in e.trace_ids) or '-'} |"
        for e in m.evidence
    ]
    header = ["| item | candidate | baseline | delta | traces |", "|---|---:|---:|---:|---|"]
    return "\n".join([*header, *rows]) + "\n"
