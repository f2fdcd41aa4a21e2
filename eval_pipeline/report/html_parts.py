"""The pieces of the HTML report: escaping, numbers, verdict cells and the tables' rows.

Shared by the page (``html``), the trace pages (``trace_view``) and the NIST section (``nist``)
so every table looks and escapes alike.
"""

import html
from typing import Any

from eval_pipeline.report.trace_links import TraceLinks, anchor


def e(value: object) -> str:
    """HTML-escaped text (quotes too: safe inside attributes)."""
    return html.escape(str(value), quote=True)


def num(value: float | None, signed: bool = False) -> str:
    """Four decimals, ``-`` for none."""
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def interval(low: float | None, high: float | None, signed: bool = True) -> str:
    """``[low, high]``."""
    return f"[{num(low, signed)}, {num(high, signed)}]"


def verdict_cell(verdict: str) -> str:
    """A table cell coloured by verdict."""
    return f'<td class="{e(verdict)}">{e(verdict)}</td>'


def table(caption: str, table_id: str, header: list[str], rows: list[str]) -> str:
    """A section with one table, or a line saying there is nothing to show."""
    if not rows:
        return f'<h2 id="{table_id}">{e(caption)}</h2><p>None.</p>'
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = "".join(f"<tr>{row}</tr>" for row in rows)
    return f'<h2>{e(caption)}</h2><table id="{table_id}"><tr>{head}</tr>{body}</table>'


def figure(image_id: str, alt: str, data_uri: str) -> str:
    """An inline image (a PNG data URI)."""
    return f'<img id="{image_id}" alt="{e(alt)}" src="{data_uri}">'


METRIC_HEADER = [
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
]
SLICE_HEADER = [
    "metric",
    "slice",
    "verdict",
    "candidate",
    "baseline",
    "delta",
    "interval",
    "items",
    "reason",
]
BUDGET_HEADER = ["budget", "verdict", "value", "interval", "limit", "reason"]
EVIDENCE_HEADER = ["metric", "item", "candidate", "baseline", "delta", "traces"]


def metric_row(m: dict[str, Any]) -> str:
    """One row of the metrics table."""
    return (
        f"<td><code>{e(m['metric_id'])}</code></td>{verdict_cell(m['verdict'])}"
        f'<td class="num">{num(m["candidate_mean"])}</td>'
        f'<td class="num">{num(m["baseline_mean"])}</td>'
        f'<td class="num">{num(m["delta"], True)}</td>'
        f"<td>{interval(m['ci_low'], m['ci_high'])}</td>"
        f'<td class="num">{m["threshold"]:g}</td><td class="num">{m["max_regression"]:g}</td>'
        f'<td class="num">{m["missing"]}</td><td>{e(m["reason"])}</td>'
    )


def slice_row(m: dict[str, Any], s: dict[str, Any]) -> str:
    """One row of the slices table (every slice, passing ones too)."""
    return (
        f"<td><code>{e(m['metric_id'])}</code></td><td>{e(s['slice'])}={e(s['value'])}</td>"
        f"{verdict_cell(s['verdict'])}"
        f'<td class="num">{num(s["candidate_mean"])}</td>'
        f'<td class="num">{num(s["baseline_mean"])}</td>'
        f'<td class="num">{num(s["delta"], True)}</td>'
        f"<td>{interval(s['ci_low'], s['ci_high'])}</td>"
        f'<td class="num">{s["n_items"]}</td><td>{e(s["reason"])}</td>'
    )


def trace_link(trace_id: str, links: TraceLinks, build: str) -> str:
    """A trace id linking to its page in the report, and out through the template if set."""
    inside = f'<a class="trace" href="#{anchor("trace", trace_id)}"><code>{e(trace_id)}</code></a>'
    if not links.external:
        return inside
    out = e(links.trace(trace_id, build))
    return f'{inside} <a class="trace-out" href="{out}" title="open in the tracing UI">&#8599;</a>'


def evidence_row(m: dict[str, Any], item: dict[str, Any], links: TraceLinks, build: str) -> str:
    """One worst item: its means and delta, its traces linked."""
    traces = " ".join(trace_link(t, links, build) for t in item["trace_ids"]) or "-"
    return (
        f"<td><code>{e(m['metric_id'])}</code></td><td><code>{e(item['item_id'])}</code></td>"
        f'<td class="num">{num(item["candidate_mean"])}</td>'
        f'<td class="num">{num(item["baseline_mean"])}</td>'
        f'<td class="num">{num(item["delta"], True)}</td><td>{traces}</td>'
    )


def budget_row(b: dict[str, Any]) -> str:
    """One row of the budgets table."""
    return (
        f"<td><code>{e(b['budget'])}</code></td>{verdict_cell(b['verdict'])}"
        f'<td class="num">{num(b["value"])}</td><td>{interval(b["ci_low"], b["ci_high"], False)}'
        f'</td><td class="num">{b["limit"]:g}</td><td>{e(b["reason"])}</td>'
    )
