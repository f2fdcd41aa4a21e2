"""The standalone HTML gate report: one file, everything inline, nothing fetched.

What a release manager opens from a CI artefact: the verdict and whether it blocks, the build
and its baseline, the forest plot, the score distributions (candidate against baseline) and the
judge's calibration (PNGs inlined as data URIs), one table of metrics, one of every slice
(passing ones too), the budgets, what changed against the baseline item by item
(``changes_section``; the worst items where there is no baseline to compare with), each run
linking to its trace page (the span tree with the scores on its spans, ``trace_view``), the
judge's calls and their cost, each score linking to the calls that made it (``judge_calls``),
and the NIST AI RMF section (``nist``). No
script, no stylesheet or font from the network: the page renders offline and from ``file://``;
the only links out are to a tracing UI, when a trace URL template is set (``trace_links``).
"""

from eval_pipeline.report.calibration_plot import agreement_html
from eval_pipeline.report.changes_section import STYLE as CHANGES_STYLE
from eval_pipeline.report.changes_section import changes_section
from eval_pipeline.report.figures import png_data_uri
from eval_pipeline.report.gate_plots import gate_plot_pngs
from eval_pipeline.report.history_plot import history_png
from eval_pipeline.report.html_parts import (
    BUDGET_HEADER,
    EVIDENCE_HEADER,
    METRIC_HEADER,
    SLICE_HEADER,
    budget_row,
    e,
    evidence_row,
    figure,
    metric_row,
    slice_row,
    table,
)
from eval_pipeline.report.inputs import ReportInputs
from eval_pipeline.report.judge_calls import cost_section, judge_trace_pages
from eval_pipeline.report.nist import nist_section
from eval_pipeline.report.trace_links import TraceLinks
from eval_pipeline.report.trace_view import STYLE as TRACE_STYLE
from eval_pipeline.report.trace_view import trace_pages

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2328;max-width:72rem}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;font-size:.9rem}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1a7f37}.fail{color:#cf222e;font-weight:bold}.inconclusive{color:#bf8700}
.banner{font-size:1.4rem;padding:.5rem 1rem;border-radius:.4rem;display:inline-block}
.banner.pass{background:#dafbe1}.banner.fail{background:#ffebe9}
.banner.inconclusive{background:#fff8c5}
code{font-size:.85rem}img{max-width:100%}
dl{display:grid;grid-template-columns:max-content auto;gap:.1rem 1rem}dd{margin:0}
"""


def _banner(report: dict[str, object]) -> str:
    verdict = str(report["verdict"])
    release = "no-go (blocks the release)" if report.get("blocking") else "go"
    if verdict != "pass" and not report.get("blocking"):
        release = "go, with warnings"
    return (
        f'<p class="banner {e(verdict)}" id="verdict">{e(verdict.upper())}: {release} '
        f"(tier {e(report.get('tier', '-'))})</p>"
    )


def _plots(inputs: ReportInputs) -> list[str]:
    report, pngs = inputs.report, gate_plot_pngs(inputs)
    parts = [
        "<h2>Forest plot</h2>",
        figure(
            "forest-plot",
            "delta and interval per metric and slice against the margin",
            png_data_uri(pngs["forest"]),
        ),
        "<h2>Score distributions</h2>",
        figure(
            "distribution-plot",
            "score distributions per gated metric, candidate against baseline",
            png_data_uri(pngs["distributions"]),
        ),
        '<h2 id="calibration">Judge calibration</h2>',
    ]
    if "calibration" not in pngs:
        parts.append(f"<p>No judge calibration: {e(report.get('judge_calibration', '-'))}.</p>")
        return parts
    judged = ", ".join(inputs.judged_metrics) or "none of the gated metrics"
    parts.append(f"<p>The judge scores: {e(judged)}.</p>")
    parts.append(
        figure(
            "calibration-plot",
            "judge agreement with human labels, with intervals",
            png_data_uri(pngs["calibration"]),
        )
    )
    if inputs.calibration is not None:
        parts.append(agreement_html(inputs.calibration))
    return parts


def _history(inputs: ReportInputs) -> list[str]:
    """The trend plot over the suite's builds and this build's flaky items."""
    if not inputs.history:
        return []
    floors = {m["metric_id"]: float(m["threshold"]) for m in inputs.report["metrics"]}
    png = history_png(inputs.history, floors, inputs.build)
    flaky = [
        f"<td><code>{e(f.metric_id)}</code></td><td><code>{e(f.item_id)}</code></td>"
        f"<td>{e(', '.join(f'{v:g}' for v in f.values))}</td>"
        f'<td class="num">{f.share_of_width:.1%}</td><td class="num">{f.p_value:.2g}</td>'
        for points in inputs.history.values()
        for p in points
        if p.build == inputs.build
        for f in p.flaky
    ]
    return [
        '<h2 id="history">History</h2>',
        figure(
            "history-plot",
            "each metric's mean and interval over the suite's builds",
            png_data_uri(png),
        ),
        table(
            "Flaky items of this build (runs disagreeing beyond chance; kept in every mean)",
            "flaky",
            ["metric", "item", "run scores", "share of the interval's width", "p"],
            flaky,
        ),
    ]


def render_html(inputs: ReportInputs, links: TraceLinks | None = None) -> str:
    """The report of ``inputs.build`` as one self-contained HTML page."""
    links = links or TraceLinks()
    report, build, metrics = inputs.report, inputs.build, inputs.report["metrics"]
    facts = [
        ("build", build),
        ("baseline", report.get("baseline") or "none"),
        ("risk tier", report.get("tier", "-")),
        ("judge calibration", report.get("judge_calibration", "-")),
        ("dataset validation", report.get("dataset_validation", "-")),
        ("first baseline", "yes" if report.get("first_baseline") else "no"),
    ]
    evidence = [
        evidence_row(m, item, links, build) for m in metrics for item in m.get("evidence", [])
    ]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Release gate: {e(build)}</title>",
        f"<style>{_STYLE}{TRACE_STYLE}{CHANGES_STYLE}</style></head><body>",
        f"<h1>Release gate: <code>{e(build)}</code></h1>",
        _banner(report),
        '<dl id="facts">' + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in facts) + "</dl>",
        table("Metrics", "metrics", METRIC_HEADER, [metric_row(m) for m in metrics]),
        table(
            "Slices",
            "slices",
            SLICE_HEADER,
            [slice_row(m, s) for m in metrics for s in m.get("slices", [])],
        ),
        table(
            "Budgets", "budgets", BUDGET_HEADER, [budget_row(b) for b in report.get("budgets", [])]
        ),
        *_plots(inputs),
        cost_section(inputs.judge_cost, inputs.judge_traces),
        *_history(inputs),
        changes_section(inputs.comparison, links)
        if inputs.comparison is not None
        else table("Evidence (worst items)", "evidence", EVIDENCE_HEADER, evidence),
    ]
    if report.get("warnings"):
        parts.append("<h2>Warnings</h2><ul>")
        parts.extend(f"<li>{e(w)}</li>" for w in report["warnings"])
        parts.append("</ul>")
    parts.append(nist_section(inputs))
    parts.append(trace_pages(inputs, links))
    parts.append(judge_trace_pages(inputs.judge_traces))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
