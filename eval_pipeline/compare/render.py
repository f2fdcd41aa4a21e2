"""A comparison written out: JSON for scripts, Markdown for CI comments, text for a terminal.

Every rendering shows, per metric, how many items regressed, improved, stayed and could not
be paired, then each item shown (largest effect first) with its slices, both means and the
delta, its input and reference, and every run of both builds: score, status, reason, the
stored answer and tool calls, and the trace. ``link`` turns a trace id into a URL (a tracing
UI's, ``report.trace_links``); without one, Markdown and text show the bare id.
"""

import json
from collections.abc import Callable
from typing import Any

from eval_pipeline.compare.changes import DIRECTIONS, ItemChange, RunScore
from eval_pipeline.compare.comparison import Comparison
from eval_pipeline.compare.details import TEXT_LIMIT

Link = Callable[[str, str], str]
"""``(trace_id, build) -> URL``."""


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _short(value: object, limit: int = TEXT_LIMIT) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def calls_text(calls: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> str:
    """Tool calls as ``name(args)``, with ``!error`` after a failed one; ``-`` for none."""
    shown = []
    for call in calls:
        text = f"{call['name']}({_short(call.get('arguments') or {}, 160)})"
        if call.get("error"):
            text += f" !{_short(call['error'], 120)}"
        shown.append(text)
    return "; ".join(shown) or "-"


def _slices(item: ItemChange) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(item.slices.items()))


def _headline(item: ItemChange) -> str:
    missing = f", {item.missing} run(s) without a score" if item.missing else ""
    where = f" ({_slices(item)})" if item.slices else ""
    return (
        f"{item.item_id}{where}: {_num(item.baseline_mean)} -> {_num(item.candidate_mean)} "
        f"({_num(item.delta, True)}{missing})"
    )


def _sides(comparison: Comparison, item: ItemChange) -> list[tuple[str, str, RunScore]]:
    """``(side, build, run)`` of every run of the item, baseline first."""
    out = [("baseline", str(comparison.baseline), r) for r in item.baseline_runs]
    return out + [("candidate", comparison.candidate, r) for r in item.candidate_runs]


def _run_json(comparison: Comparison, side: str, run: RunScore, link: Link | None) -> dict:
    build = comparison.candidate if side == "candidate" else str(comparison.baseline)
    detail = comparison.detail(side, run.trace_id)
    out = {**run.to_json(), "detail": detail.to_json() if detail else None}
    if link is not None and run.trace_id:
        out["trace_url"] = link(run.trace_id, build)
    return out


def to_json(comparison: Comparison, link: Link | None = None) -> dict[str, Any]:
    """The comparison as one JSON document (``eval-pipeline compare --format json``)."""
    metrics = []
    for m in comparison.metrics:
        items = []
        for item in m.items():
            reference = comparison.references.get(item.item_id)
            items.append(
                {
                    "item_id": item.item_id,
                    "direction": item.direction,
                    "slices": item.slices,
                    "candidate_mean": item.candidate_mean,
                    "baseline_mean": item.baseline_mean,
                    "delta": item.delta,
                    "missing": item.missing,
                    "input": comparison.user_input(item),
                    "reference": reference.to_json() if reference else None,
                    "baseline_runs": [
                        _run_json(comparison, "baseline", r, link) for r in item.baseline_runs
                    ],
                    "candidate_runs": [
                        _run_json(comparison, "candidate", r, link) for r in item.candidate_runs
                    ],
                }
            )
        counts = {d: m.count(d) for d in DIRECTIONS}
        metrics.append({"metric_id": m.metric_id, "counts": counts, "items": items})
    return {
        "candidate": comparison.candidate,
        "baseline": comparison.baseline,
        "filters": comparison.filters,
        "metrics": metrics,
    }


def _counts(comparison: Comparison) -> list[tuple[str, list[int]]]:
    return [(m.metric_id, [m.count(d) for d in DIRECTIONS]) for m in comparison.metrics]


def _cell(value: object) -> str:
    return _short(value, TEXT_LIMIT).replace("|", "\\|") if value not in (None, "") else "-"


def _md_trace(trace_id: str | None, build: str, link: Link | None) -> str:
    if not trace_id:
        return "-"
    return f"[`{trace_id[:12]}`]({link(trace_id, build)})" if link else f"`{trace_id}`"


def _md_item(comparison: Comparison, item: ItemChange, link: Link | None) -> list[str]:
    reference = comparison.references.get(item.item_id)
    lines = [f"<details><summary><code>{_headline(item)}</code></summary>", ""]
    if reference is not None and reference.missing:
        lines.append(f"- reference: not available ({_cell(reference.missing)})")
    elif reference is not None:
        lines.append(f"- input: {_cell(comparison.user_input(item))}")
        lines.append(f"- reference answer: {_cell(reference.answer)}")
        lines.append(f"- reference calls: {_cell(calls_text(reference.tool_calls))}")
    lines += [
        "",
        "| build | run | score | reason | answer | tool calls | trace |",
        "|" + "---|" * 7,
    ]
    for side, build, run in _sides(comparison, item):
        detail = comparison.detail(side, run.trace_id)
        score = _num(run.value) if run.status == "scored" else run.status
        answer = detail.answer if detail else "(trace not in this home)"
        calls = calls_text(detail.tool_calls) if detail else "-"
        lines.append(
            f"| {side} `{build}` | {run.run_index} | {score} | {_cell(run.reason)} | "
            f"{_cell(answer)} | {_cell(calls)} | {_md_trace(run.trace_id, build, link)} |"
        )
    return [*lines, "", "</details>", ""]


def to_markdown(comparison: Comparison, link: Link | None = None) -> str:
    """The comparison as Markdown for a CI comment: a summary table, then each item folded."""
    against = f"`{comparison.baseline}`" if comparison.baseline else "no baseline"
    lines = [f"## What changed: `{comparison.candidate}` against {against}", ""]
    lines += ["| metric | regressed | improved | unchanged | unpaired |", "|---|---|---|---|---|"]
    lines += [f"| `{m}` | " + " | ".join(str(c) for c in counts) + " |" for m, counts in
              _counts(comparison)]  # fmt: skip
    for m in comparison.metrics:
        for direction in DIRECTIONS:
            shown = m.groups.get(direction, ())
            moved = m.count("regressed") + m.count("improved")
            if not shown or (direction == "unchanged" and moved):
                continue  # unchanged items only when nothing moved: they are counted above
            more = m.count(direction) - len(shown)
            tail = f" (largest {len(shown)} of {m.count(direction)})" if more else ""
            lines += ["", f"### `{m.metric_id}`: {direction}{tail}", ""]
            for item in shown:
                lines += _md_item(comparison, item, link)
    return "\n".join(lines).rstrip() + "\n"


def to_text(comparison: Comparison, link: Link | None = None) -> str:
    """The comparison for a terminal: one block per item, every run on its own lines."""
    against = comparison.baseline or "no baseline"
    out = [f"What changed: {comparison.candidate} against {against}"]
    for metric_id, counts in _counts(comparison):
        moved = ", ".join(f"{c} {d}" for d, c in zip(DIRECTIONS, counts, strict=True))
        out.append(f"  {metric_id}: {moved}")
    for m in comparison.metrics:
        for item in m.items():
            out.append("")
            out.append(f"{m.metric_id} {item.direction.upper()} {_headline(item)}")
            reference = comparison.references.get(item.item_id)
            if reference is not None and reference.missing:
                out.append(f"  reference: not available ({reference.missing})")
            elif reference is not None:
                out.append(f"  input: {_short(comparison.user_input(item) or '-')}")
                out.append(f"  reference: {_short(reference.answer or '-')}")
                out.append(f"  reference calls: {calls_text(reference.tool_calls)}")
            for side, build, run in _sides(comparison, item):
                detail = comparison.detail(side, run.trace_id)
                score = _num(run.value) if run.status == "scored" else run.status
                trace = run.trace_id or "-"
                if link is not None and run.trace_id:
                    trace = link(run.trace_id, build)
                out.append(f"  {side} {build} run {run.run_index}: {score}  trace {trace}")
                if run.reason:
                    out.append(f"    reason: {_short(run.reason)}")
                if detail is None:
                    out.append("    (trace not in this home)")
                    continue
                out.append(f"    answer: {_short(detail.answer or '-')}")
                out.append(f"    calls: {calls_text(detail.tool_calls)}")
    return "\n".join(out) + "\n"


def regressions_table(comparison: Comparison, k: int, link: Link | None = None) -> str:
    """The ``k`` largest regressions across metrics as one Markdown table (gate metadata)."""
    top = comparison.top_regressions(k)
    if not top:
        return f"No item regressed against `{comparison.baseline}`."
    lines = [
        f"Largest regressions against `{comparison.baseline}` ({len(top)} shown):",
        "",
        "| metric | item | baseline | candidate | delta | missing | candidate traces |",
        "|---|---|---|---|---|---|---|",
    ]
    for item in top:
        traces = " ".join(
            _md_trace(r.trace_id, comparison.candidate, link) for r in item.candidate_runs
        )
        lines.append(
            f"| `{item.metric_id}` | `{item.item_id}` | {_num(item.baseline_mean)} | "
            f"{_num(item.candidate_mean)} | {_num(item.delta, True)} | {item.missing} | {traces} |"
        )
    return "\n".join(lines)
