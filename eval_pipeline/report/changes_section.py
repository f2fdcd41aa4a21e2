"""The report's "What changed" section: the comparison of the build with its baseline.

Replaces the old "evidence (worst items)" list, which showed unchanged items (delta +0.0000)
with their scores only. Per metric, how many items regressed, improved, stayed and could not
be paired; then, for each metric that moved, its items largest effect first, each with its
input and reference and every run of both builds: score, reason, the stored (redacted) answer
and tool calls, and the trace linked to its page in the report (and out, with a template).
"""

from eval_pipeline.compare.changes import DIRECTIONS, ItemChange
from eval_pipeline.compare.comparison import Comparison
from eval_pipeline.compare.render import calls_text
from eval_pipeline.report.html_parts import e, num
from eval_pipeline.report.trace_links import TraceLinks, anchor

STYLE = """
tbody.change{border-top:2px solid #57606a}tr.item td{background:#f6f8fa}
td.text{max-width:28rem;font-size:.8rem;overflow-wrap:anywhere}
.regressed{color:#cf222e;font-weight:bold}.improved{color:#1a7f37;font-weight:bold}
"""
SHOWN = ("regressed", "improved")
"""Directions the report lists item by item (unchanged and unpaired ones are counted)."""
LIMIT = 5
"""Items per metric and direction in the report (``eval-pipeline compare`` shows more)."""
_RUN_HEADER = ["build", "run", "score", "reason", "answer", "tool calls", "trace"]


def _clip(text: object, limit: int = 400) -> str:
    value = " ".join(str(text).split()) if text not in (None, "") else "-"
    return e(value if len(value) <= limit else value[: limit - 1] + "…")


def _trace(trace_id: str | None, build: str, links: TraceLinks) -> str:
    if not trace_id:
        return "-"
    inside = f'<a class="trace" href="#{anchor("trace", trace_id)}"><code>{e(trace_id)}</code></a>'
    if not links.external:
        return inside
    out = e(links.trace(trace_id, build))
    return f'{inside} <a class="trace-out" href="{out}" title="open in the tracing UI">&#8599;</a>'


def _item(comparison: Comparison, item: ItemChange, links: TraceLinks) -> str:
    reference = comparison.references.get(item.item_id)
    if reference is None or reference.missing:
        expected = f"reference not available ({_clip(reference.missing if reference else '-')})"
    else:
        expected = (
            f"reference: {_clip(reference.answer)}<br>reference calls: "
            f"{_clip(calls_text(reference.tool_calls))}"
        )
    slices = ", ".join(f"{k}={v}" for k, v in sorted(item.slices.items()))
    missing = f", {item.missing} run(s) without a score" if item.missing else ""
    head = (
        f'<tr class="item"><td colspan="7"><span class="{e(item.direction)}">'
        f"{e(item.direction)}</span> <code>{e(item.item_id)}</code> {e(slices)}: "
        f"{num(item.baseline_mean)} &rarr; {num(item.candidate_mean)} "
        f"({num(item.delta, True)}{e(missing)})<br>input: {_clip(comparison.user_input(item))}"
        f"<br>{expected}</td></tr>"
    )
    rows = [head]
    sides = [("baseline", str(comparison.baseline), r) for r in item.baseline_runs]
    sides += [("candidate", comparison.candidate, r) for r in item.candidate_runs]
    for side, build, run in sides:
        detail = comparison.detail(side, run.trace_id)
        score = num(run.value) if run.status == "scored" else e(run.status)
        answer = _clip(detail.answer) if detail else "(trace not in this home)"
        calls = _clip(calls_text(detail.tool_calls)) if detail else "-"
        rows.append(
            f"<tr><td>{e(side)} <code>{e(build)}</code></td><td>{run.run_index}</td>"
            f'<td class="num">{score}</td><td class="text">{_clip(run.reason)}</td>'
            f'<td class="text">{answer}</td><td class="text">{calls}</td>'
            f"<td>{_trace(run.trace_id, build, links)}</td></tr>"
        )
    return '<tbody class="change">' + "".join(rows) + "</tbody>"


def changes_section(comparison: Comparison, links: TraceLinks) -> str:
    """The "What changed" section of the report."""
    head = "".join(f"<th>{d}</th>" for d in ("metric", *DIRECTIONS))
    counts = "".join(
        f"<tr><td><code>{e(m.metric_id)}</code></td>"
        + "".join(f'<td class="num">{m.count(d)}</td>' for d in DIRECTIONS)
        + "</tr>"
        for m in comparison.metrics
    )
    parts = [
        f'<h2 id="what-changed">What changed against <code>{e(comparison.baseline)}</code></h2>',
        "<p>Items by the change of their mean score (all runs of both builds shown), largest "
        f"effect first, at most {LIMIT} per metric and direction; unchanged items are counted. "
        "<code>eval-pipeline compare</code> lists them all.</p>",
        f'<table id="changes-summary"><tr>{head}</tr>{counts}</table>',
    ]
    for m in comparison.metrics:
        items = [i for d in SHOWN for i in m.groups.get(d, ())]
        if not items:
            continue
        header = "".join(f"<th>{h}</th>" for h in _RUN_HEADER)
        body = "".join(_item(comparison, item, links) for item in items)
        parts.append(
            f"<h3><code>{e(m.metric_id)}</code>: {m.count('regressed')} regressed, "
            f"{m.count('improved')} improved</h3>"
            f'<table id="{anchor("changes", m.metric_id)}"><tr>{header}</tr>{body}</table>'
        )
    return "\n".join(parts)
