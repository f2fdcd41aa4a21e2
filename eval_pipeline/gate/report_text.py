"""Plain-text rendering of a gate report, for terminals and logs."""

from eval_pipeline.gate.decision import GateReport, MetricDecision


def fmt(value: float | None, signed: bool = False) -> str:
    """A number with 4 decimals, or ``-`` when absent."""
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def outcome(report: GateReport) -> str:
    """``PASS``, ``PASS WITH WARNINGS``, ``FAIL`` or ``INCONCLUSIVE (blocks ...)``."""
    if report.verdict == "pass":
        return "PASS"
    if report.verdict == "fail":
        return "FAIL"
    if report.blocking:
        return f"INCONCLUSIVE (blocks under tier {report.tier})"
    return f"INCONCLUSIVE (passes with warnings under tier {report.tier})"


def _metric_lines(m: MetricDecision) -> list[str]:
    lines = [
        f"  {m.verdict.upper():<12} {m.metric_id}: candidate {fmt(m.candidate_mean)} "
        f"baseline {fmt(m.baseline_mean)} delta {fmt(m.delta, True)} "
        f"[{fmt(m.ci_low, True)}, {fmt(m.ci_high, True)}] "
        f"floor {m.threshold:g} margin {m.max_regression:g} missing {m.missing.total}",
        f"               {m.reason}",
    ]
    lines.extend(
        f"               slice {s.slice}={s.value}: {s.verdict} delta {fmt(s.delta, True)} "
        f"[{fmt(s.ci_low, True)}, {fmt(s.ci_high, True)}] ({s.n_items} items)"
        for s in m.slices
        if s.verdict == "fail"
    )
    if m.power is not None:
        lines.append(f"               power: {m.power.note}")
    if m.verdict != "pass":
        lines.extend(
            f"               evidence {e.item_id}: candidate {fmt(e.candidate_mean)} "
            f"baseline {fmt(e.baseline_mean)} traces {', '.join(e.trace_ids) or '-'}"
            for e in m.evidence
        )
    return lines


def render_text(report: GateReport) -> str:
    """The report as plain text: verdict, one block per metric and budget, warnings."""
    lines = [f"gate: {outcome(report)} (tier {report.tier})", "metrics:"]
    for metric in report.metrics:
        lines.extend(_metric_lines(metric))
    if report.budgets:
        lines.append("budgets:")
    lines.extend(
        f"  {b.verdict.upper():<12} {b.budget}: {fmt(b.value)} "
        f"[{fmt(b.ci_low)}, {fmt(b.ci_high)}] limit {b.limit:g}: {b.reason}"
        for b in report.budgets
    )
    if report.warnings:
        lines.append("warnings:")
        lines.extend(f"  - {w}" for w in report.warnings)
    return "\n".join(lines) + "\n"
