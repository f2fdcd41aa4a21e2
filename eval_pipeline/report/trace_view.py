"""The report's trace pages: each evidence trace as its span tree, with the scores on their spans.

One ``<section class="trace-page" id="trace-<id>">`` per trace, shown when the address names it or
one of its spans (CSS ``:target`` and ``:has(:target)``, no script), so an evidence link opens the
trace "page" inside the one file and a score's span link stays on it, the span highlighted. The
page lists the run (item, run index, root agent, completeness, final answer), every score of the
run as stored in the score store (metric, value, status, reason, the span ids it was given on, each
linking to its span below, and the judge calls that made it, each linking to its line on its judge
trace's page, ``report.judge_calls``), and the span tree as nested lists; a span carries the scores
given on it as badges. Scores naming no span sit on the trace's top spans. A trace the home does
not hold says so, with its scores still listed.
"""

from typing import Any

from eval_pipeline.report.html_parts import e, num, table
from eval_pipeline.report.inputs import ReportInputs
from eval_pipeline.report.judge_calls import call_links
from eval_pipeline.report.trace_links import TraceLinks, anchor

STYLE = """
.trace-page{display:none;border-top:2px solid #d0d7de;margin-top:1rem}
.trace-page:target,.trace-page:has(:target){display:block}
ul.spans{list-style:none;padding-left:1.2rem;border-left:1px dotted #afb8c1}
li.span{margin:.2rem 0}li.span:target>.span-line{background:#fff8c5}
.op{color:#57606a;font-size:.8rem}.err{color:#cf222e;font-weight:bold}
.score{display:inline-block;border-radius:.6rem;padding:0 .4rem;margin-left:.3rem;
font-size:.8rem;background:#ddf4ff}.score.low{background:#ffebe9}
"""

_LOW = 0.5


def _badge(score: dict[str, Any]) -> str:
    value = score["value"]
    shown = num(value) if score["status"] == "scored" else score["status"]
    low = " low" if value is not None and value < _LOW else ""
    return (
        f'<span class="score{low}" title="{e(score["reason"] or "")}">'
        f"{e(score['metric_id'])}={e(shown)}</span>"
    )


def _span(node: dict[str, Any], trace_id: str, on_span: dict[str, list[dict[str, Any]]]) -> str:
    details = [f'<span class="op">[{e(node["operation"])}]</span>']
    details.extend(
        f'<span class="op">{key.split("_")[0]}={e(node[key])}</span>'
        for key in ("agent_name", "tool_name", "model")
        if node.get(key)
    )
    if node["status"] == "error":
        details.append('<span class="err">ERROR</span>')
    badges = "".join(_badge(s) for s in on_span.get(node["span_id"], []))
    line = (
        f'<span class="span-line"><b>{e(node["name"])}</b> {" ".join(details)} '
        f"<code>{e(node['span_id'])}</code> {node['duration_s']:.3f}s{badges}</span>"
    )
    if "tool_arguments" in node:
        line += f'<div class="op">args: <code>{e(node["tool_arguments"])}</code></div>'
    children = "".join(_span(child, trace_id, on_span) for child in node["children"])
    nested = f'<ul class="spans">{children}</ul>' if children else ""
    return f'<li class="span" id="{anchor("span", trace_id, node["span_id"])}">{line}{nested}</li>'


def _scores_on_spans(
    document: dict[str, Any], scores: list[dict[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Span id -> the scores given on it; scores naming no span go on the top spans."""
    on_span: dict[str, list[dict[str, Any]]] = {}
    tops = [top["span_id"] for top in document["spans"]]
    for score in scores:
        for span_id in score["span_ids"] or tops:
            on_span.setdefault(span_id, []).append(score)
    return on_span


def _score_row(score: dict[str, Any], trace_id: str, links: TraceLinks, build: str) -> str:
    spans = " ".join(
        f'<a href="#{anchor("span", trace_id, s)}"><code>{e(s)}</code></a>'
        + (f' <a href="{e(links.trace(trace_id, build, s))}">&#8599;</a>' if links.external else "")
        for s in score["span_ids"]
    )
    return (
        f'<td><code>{e(score["metric_id"])}</code></td><td class="num">{num(score["value"])}</td>'
        f"<td>{e(score['status'])}</td><td>{e(score['reason'] or '')}</td>"
        f"<td>{spans or '(whole trace)'}</td>"
        f"<td>{call_links(score['judge_calls'], links, build) or '-'}</td>"
    )


def trace_page(inputs: ReportInputs, trace_id: str, links: TraceLinks) -> str:
    """The section of one trace."""
    document = inputs.traces.get(trace_id)
    scores = inputs.scores_by_trace.get(trace_id, [])
    out_link = ""
    if links.external:
        out_link = f' <a href="{e(links.trace(trace_id, inputs.build))}">open in the tracing UI</a>'
    back = "what-changed" if inputs.comparison is not None else "evidence"
    parts = [
        f'<section class="trace-page" id="{anchor("trace", trace_id)}">',
        f"<h2>Trace <code>{e(trace_id)}</code></h2>",
        f'<p><a href="#{back}">back to {back.replace("-", " ")}</a>{out_link}</p>',
    ]
    rows = [_score_row(s, trace_id, links, inputs.build) for s in scores]
    header = ["metric", "value", "status", "reason", "spans", "judge calls"]
    parts.append(table("Scores of this run", anchor("scores", trace_id), header, rows))
    if document is None:
        parts.append("<p>This trace is not in this home's trace store.</p></section>")
        return "".join(parts)
    parts.append(
        f"<p>build <code>{e(document['build'])}</code>, item <code>{e(document['item_id'])}"
        f"</code>, run {e(document['run_index'])}, root agent {e(document['root_agent'])}, "
        f"complete: {e(document['complete'])}, {document['duration_s']:.3f}s</p>"
    )
    on_span = _scores_on_spans(document, scores)
    tree = "".join(_span(top, trace_id, on_span) for top in document["spans"])
    parts.append(f'<h3>Span tree</h3><ul class="spans tree">{tree}</ul>')
    parts.append(f"<p>final answer: {e(document['final_answer'] or '-')}</p></section>")
    return "".join(parts)


def trace_pages(inputs: ReportInputs, links: TraceLinks) -> str:
    """Every evidence trace's page, in report order."""
    return "\n".join(trace_page(inputs, t, links) for t in inputs.evidence_trace_ids)
