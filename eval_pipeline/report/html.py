"""The standalone HTML gate report: one file, everything inline, nothing fetched.

What a release manager opens from a CI artefact: the verdict and whether it blocks, the build
and its baseline, the forest plot (a PNG inlined as base64), one table of metrics, one of every
slice (passing ones too), the budgets, the worst items with their trace ids, the warnings. No
script, no stylesheet or font from the network: the page renders offline and from ``file://``.
"""

import base64
import html
from typing import Any

from eval_pipeline.report.forest import forest_png

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2328;max-width:70rem}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;font-size:.9rem}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1a7f37}.fail{color:#cf222e;font-weight:bold}.inconclusive{color:#bf8700}
.banner{font-size:1.4rem;padding:.5rem 1rem;border-radius:.4rem;display:inline-block}
.banner.pass{background:#dafbe1}.banner.fail{background:#ffebe9}
.banner.inconclusive{background:#fff8c5}
code{font-size:.85rem}
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _interval(low: float | None, high: float | None, signed: bool = True) -> str:
    return f"[{_num(low, signed)}, {_num(high, signed)}]"


def _verdict(verdict: str) -> str:
    return f'<td class="{_e(verdict)}">{_e(verdict)}</td>'


def _table(caption: str, table_id: str, header: list[str], rows: list[str]) -> str:
    """A section with one table, or a line saying there is nothing to show."""
    if not rows:
        return f"<h2>{_e(caption)}</h2><p>None.</p>"
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    return f'<h2>{_e(caption)}</h2><table id="{table_id}"><tr>{head}</tr>{body}</table>'


def _metric_row(m: dict[str, Any]) -> str:
    return (
        f"<td><code>{_e(m['metric_id'])}</code></td>{_verdict(m['verdict'])}"
        f'<td class="num">{_num(m["candidate_mean"])}</td>'
        f'<td class="num">{_num(m["baseline_mean"])}</td>'
        f'<td class="num">{_num(m["delta"], True)}</td>'
        f"<td>{_interval(m['ci_low'], m['ci_high'])}</td>"
        f'<td class="num">{m["threshold"]:g}</td><td class="num">{m["max_regression"]:g}</td>'
        f'<td class="num">{m["missing"]}</td><td>{_e(m["reason"])}</td>'
    )


def _slice_row(m: dict[str, Any], s: dict[str, Any]) -> str:
    return (
        f"<td><code>{_e(m['metric_id'])}</code></td><td>{_e(s['slice'])}={_e(s['value'])}</td>"
        f"{_verdict(s['verdict'])}"
        f'<td class="num">{_num(s["candidate_mean"])}</td>'
        f'<td class="num">{_num(s["baseline_mean"])}</td>'
        f'<td class="num">{_num(s["delta"], True)}</td>'
        f"<td>{_interval(s['ci_low'], s['ci_high'])}</td>"
        f'<td class="num">{s["n_items"]}</td><td>{_e(s["reason"])}</td>'
    )


def _evidence_row(m: dict[str, Any], e: dict[str, Any]) -> str:
    traces = " ".join(f'<code class="trace">{_e(t)}</code>' for t in e["trace_ids"]) or "-"
    return (
        f"<td><code>{_e(m['metric_id'])}</code></td><td><code>{_e(e['item_id'])}</code></td>"
        f'<td class="num">{_num(e["candidate_mean"])}</td>'
        f'<td class="num">{_num(e["baseline_mean"])}</td>'
        f'<td class="num">{_num(e["delta"], True)}</td><td>{traces}</td>'
    )


def _budget_row(b: dict[str, Any]) -> str:
    return (
        f"<td><code>{_e(b['budget'])}</code></td>{_verdict(b['verdict'])}"
        f'<td class="num">{_num(b["value"])}</td><td>{_interval(b["ci_low"], b["ci_high"], False)}'
        f'</td><td class="num">{b["limit"]:g}</td><td>{_e(b["reason"])}</td>'
    )


def _banner(report: dict[str, Any]) -> str:
    verdict = str(report["verdict"])
    release = "no-go (blocks the release)" if report.get("blocking") else "go"
    if verdict != "pass" and not report.get("blocking"):
        release = "go, with warnings"
    tier = _e(report.get("tier", "-"))
    return (
        f'<p class="banner {_e(verdict)}" id="verdict">{_e(verdict.upper())}: {release} '
        f"(tier {tier})</p>"
    )


def render_html(report: dict[str, Any], build: str) -> str:
    """The report of ``build`` (its stored gate JSON) as one self-contained HTML page."""
    plot = base64.b64encode(forest_png(report, title=f"{build}: {report['verdict']}"))
    metrics = report["metrics"]
    facts = [
        ("build", build),
        ("baseline", report.get("baseline") or "none"),
        ("judge calibration", report.get("judge_calibration", "-")),
        ("dataset validation", report.get("dataset_validation", "-")),
        ("first baseline", "yes" if report.get("first_baseline") else "no"),
    ]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Release gate: {_e(build)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Release gate: <code>{_e(build)}</code></h1>",
        _banner(report),
        "<dl>" + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts) + "</dl>",
        "<h2>Forest plot</h2>",
        '<img id="forest-plot" alt="delta and interval per metric and slice against the margin"'
        f' src="data:image/png;base64,{plot.decode("ascii")}">',
        _table(
            "Metrics",
            "metrics",
            [
                "metric",
                "verdict",
                "candidate",
                "baseline",
                "delta",
                "interval",
                "floor",
                "margin",
                "missing",
                "reason",
            ],
            [_metric_row(m) for m in metrics],
        ),
        _table(
            "Slices",
            "slices",
            [
                "metric",
                "slice",
                "verdict",
                "candidate",
                "baseline",
                "delta",
                "interval",
                "items",
                "reason",
            ],
            [_slice_row(m, s) for m in metrics for s in m.get("slices", [])],
        ),
        _table(
            "Budgets",
            "budgets",
            ["budget", "verdict", "value", "interval", "limit", "reason"],
            [_budget_row(b) for b in report.get("budgets", [])],
        ),
        _table(
            "Evidence (worst items)",
            "evidence",
            ["metric", "item", "candidate", "baseline", "delta", "traces"],
            [_evidence_row(m, e) for m in metrics for e in m.get("evidence", [])],
        ),
    ]
    if report.get("warnings"):
        parts.append("<h2>Warnings</h2><ul>")
        parts.extend(f"<li>{_e(w)}</li>" for w in report["warnings"])
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
