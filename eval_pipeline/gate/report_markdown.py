"""Markdown rendering of a gate report, for pull-request comments and CI summaries."""

from eval_pipeline.gate.decision import GateReport
from eval_pipeline.gate.report_text import fmt, outcome

_ICON = {"pass": "pass", "fail": "**FAIL**", "inconclusive": "_inconclusive_"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: GateReport) -> str:
    """The report as Markdown: a metrics table, slice and evidence tables, budgets, warnings."""
    out = [
        f"## Release gate: {outcome(report)}",
        "",
        f"Risk tier: `{report.tier}`.",
        "",
        "| metric | verdict | candidate | baseline | delta | interval | floor | margin "
        "| missing | reason |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    out.extend(
        f"| `{m.metric_id}` | {_ICON[m.verdict]} | {fmt(m.candidate_mean)} "
        f"| {fmt(m.baseline_mean)} | {fmt(m.delta, True)} "
        f"| [{fmt(m.ci_low, True)}, {fmt(m.ci_high, True)}] | {m.threshold:g} "
        f"| {m.max_regression:g} | {m.missing.total} | {_cell(m.reason)} |"
        for m in report.metrics
    )
    collapsed = [(m, s) for m in report.metrics for s in m.slices if s.verdict == "fail"]
    if collapsed:
        out += [
            "",
            "### Slices that collapsed",
            "",
            "| metric | slice | candidate | baseline | delta | interval | items |",
            "|---|---|---:|---:|---:|---|---:|",
        ]
        out.extend(
            f"| `{m.metric_id}` | {s.slice}={_cell(s.value)} | {fmt(s.candidate_mean)} "
            f"| {fmt(s.baseline_mean)} | {fmt(s.delta, True)} "
            f"| [{fmt(s.ci_low, True)}, {fmt(s.ci_high, True)}] | {s.n_items} |"
            for m, s in collapsed
        )
    evidence = [(m, e) for m in report.metrics if m.verdict != "pass" for e in m.evidence]
    if evidence:
        out += [
            "",
            "### Evidence (worst items)",
            "",
            "| metric | item | candidate | baseline | traces |",
            "|---|---|---:|---:|---|",
        ]
        out.extend(
            f"| `{m.metric_id}` | `{_cell(e.item_id)}` | {fmt(e.candidate_mean)} "
            f"| {fmt(e.baseline_mean)} | {', '.join(f'`{t}`' for t in e.trace_ids) or '-'} |"
            for m, e in evidence
        )
    if report.budgets:
        out += [
            "",
            "### Budgets",
            "",
            "| budget | verdict | value | interval | limit | reason |",
            "|---|---|---:|---|---:|---|",
        ]
        out.extend(
            f"| `{b.budget}` | {_ICON[b.verdict]} | {fmt(b.value)} "
            f"| [{fmt(b.ci_low)}, {fmt(b.ci_high)}] | {b.limit:g} | {_cell(b.reason)} |"
            for b in report.budgets
        )
    powered = [m for m in report.metrics if m.power is not None]
    if powered:
        out += [
            "",
            "### Power",
            "",
            "| metric | min detectable regression | margin | note |",
            "|---|---:|---:|---|",
        ]
        out.extend(
            f"| `{m.metric_id}` | {fmt(m.power.min_detectable_regression)} "
            f"| {m.max_regression:g} | {_cell(m.power.note)} |"
            for m in powered
            if m.power is not None
        )
    if report.warnings:
        out += ["", "### Warnings", ""]
        out.extend(f"- {_cell(w)}" for w in report.warnings)
    return "\n".join(out) + "\n"
