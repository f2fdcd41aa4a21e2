"""The report's judge calls: what the build's judging cost, and a page per judge trace linked to.

The build's judge calls are the ``chat`` spans of its judge partition (``judges.judge_trace``:
every scoring job of the build, calibration included); their tokens x the price table are its
judge cost (``suites.judge_cost``), shown in the "Judge calls" section with the judge traces.
A score on a trace page links each judge call that made it to that call's line on its judge
trace's page (``#span-<judge trace>-<span>``), which lists the trace's calls: who asked (metric
or library caller), model, tokens, duration, status and the reply. The prompts are on the
record too: ``eval-pipeline traces show <judge trace>`` prints them as stored (redacted).
"""

from collections.abc import Iterable
from typing import Any

from eval_pipeline.judges.call_refs import split_call
from eval_pipeline.judges.call_spans import CALLER
from eval_pipeline.judges.judge_trace import chat_spans, judge_build
from eval_pipeline.report.html_parts import e, table
from eval_pipeline.report.trace_links import TraceLinks, anchor
from eval_pipeline.suites.judge_cost import JudgeCost, judge_cost
from eval_pipeline.suites.prices import PriceTable
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.store.trace_store import TraceStore

_REPLY_CHARS = 240


def judge_calls_of(
    store: TraceStore, build: str, refs: Iterable[str]
) -> tuple[JudgeCost, dict[str, list[Span]]]:
    """The build's judge cost, and the chat spans of every judge trace ``refs`` name."""
    own = store.read_spans(judge_build(build))
    cost = judge_cost(own, PriceTable.load())
    wanted = {split_call(ref)[0] for ref in refs}
    traces: dict[str, list[Span]] = {}
    for span in chat_spans(own):
        if span.trace_id in wanted:
            traces.setdefault(span.trace_id, []).append(span)
    for trace_id in sorted(wanted - set(traces)):  # answered from another build's calls
        found = store.find_trace(trace_id)
        if found is not None:
            traces[trace_id] = chat_spans(found[1])
    return cost, traces


def call_links(refs: Iterable[str], links: TraceLinks, build: str) -> str:
    """Each judge call as a link to its line on its judge trace's page."""
    out = []
    for ref in refs:
        trace_id, span_id = split_call(ref)
        link = f'<a href="#{anchor("span", trace_id, span_id)}"><code>{e(span_id)}</code></a>'
        if links.external:
            link += (
                f' <a href="{e(links.trace(trace_id, judge_build(build), span_id))}">&#8599;</a>'
            )
        out.append(link)
    return " ".join(out)


def cost_section(cost: JudgeCost | None, traces: dict[str, Any]) -> str:
    """The "Judge calls" section: calls, tokens, cost (or why it is unknown), judge traces."""
    if cost is None or cost.calls == 0:
        return (
            '<h2 id="judge-calls">Judge calls</h2><p>No judge call recorded for this build '
            "(no judged metric, every answer from the cache, or the offline judge, which makes "
            "no call).</p>"
        )
    price = "unknown: " + (cost.unknown or "") if cost.cost_usd is None else f"{cost.cost_usd:.6f}"
    rows = [
        f'<td class="num">{cost.calls}</td><td class="num">{cost.input_tokens}</td>'
        f'<td class="num">{cost.output_tokens}</td><td>{e(price)}</td>'
        f"<td>{e(', '.join(cost.models))}</td><td>{e(cost.price_table)}</td>"
    ]
    header = ["calls", "input tokens", "output tokens", "cost (USD)", "models", "price table"]
    shown = "".join(
        f'<li><a href="#{anchor("trace", t)}"><code>{e(t)}</code></a></li>' for t in traces
    )
    listed = f"<p>Judge traces linked from this report:</p><ul>{shown}</ul>" if shown else ""
    return table("Judge calls", "judge-calls", header, rows) + listed


def _call(span: Span, trace_id: str) -> str:
    reply = " ".join(m.text for m in span.output_messages if m.text)
    if len(reply) > _REPLY_CHARS:
        reply = reply[:_REPLY_CHARS] + "..."
    status = '<span class="err">ERROR</span> ' if span.is_error else ""
    return (
        f'<li class="span" id="{anchor("span", trace_id, span.span_id)}"><span class="span-line">'
        f"<b>{e(span.name)}</b> {status}"
        f'<span class="op">caller={e(span.attributes.get(CALLER, "-"))}</span> '
        f'<span class="op">tokens={e(span.input_tokens)}/{e(span.output_tokens)}</span> '
        f"<code>{e(span.span_id)}</code> {span.duration_s:.3f}s</span>"
        f'<div class="op">reply: <code>{e(reply or "-")}</code></div></li>'
    )


def judge_trace_pages(traces: dict[str, list[Span]]) -> str:
    """A page per judge trace: its calls, each with the anchor scores link to."""
    pages = []
    for trace_id, spans in traces.items():
        calls = "".join(_call(s, trace_id) for s in spans)
        pages.append(
            f'<section class="trace-page" id="{anchor("trace", trace_id)}">'
            f"<h2>Judge trace <code>{e(trace_id)}</code></h2>"
            '<p><a href="#judge-calls">back to judge calls</a>; prompts and replies in full: '
            f"<code>eval-pipeline traces show {e(trace_id)}</code></p>"
            f'<ul class="spans tree">{calls}</ul></section>'
        )
    return "\n".join(pages)
