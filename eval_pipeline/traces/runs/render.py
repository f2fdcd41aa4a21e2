"""Runs rendered for people and scripts: the ``traces list`` row and the ``traces show`` tree.

Everything a reader debugging a run needs is shown as stored, nothing summarised away: when
the run started and how long each span took (offset from the run's start, duration), what each
model call was given and answered (input and output messages), each tool call's arguments and
result, the tokens, and every error span's status message ("unknown city: atlantis"). Payloads
that the redaction policy dropped are absent here because they were never stored.
"""

import json
from datetime import UTC, datetime
from typing import Any

from eval_pipeline.traces.model import AgentRun, Message, Span
from eval_pipeline.traces.runs.tree import TraceTree


def iso_time(unix_nano: int) -> str | None:
    """``2025-12-06T05:46:40.000Z`` (UTC, milliseconds), or None for an unset time."""
    if not unix_nano:
        return None
    moment = datetime.fromtimestamp(unix_nano / 1e9, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _error_message(span: Span) -> str:
    return str(span.status_message or span.attributes.get("error.type") or "error")


def run_errors(run: AgentRun) -> list[dict[str, str]]:
    """Every span with an error status, in start order: span id, name and status message."""
    return [
        {"span_id": s.span_id, "name": s.name, "message": _error_message(s)}
        for s in run.spans
        if s.is_error
    ]


def run_row(run: AgentRun, build: str) -> dict[str, Any]:
    """One ``traces list`` object (**contract**, docs/DESIGN.md 9, plus the view's fields)."""
    errors = run_errors(run)
    return {
        "trace_id": run.trace_id,
        "build": build,
        "item_id": run.eval_context.item_id,
        "run_index": run.eval_context.run_index,
        "root_agent": run.root_agent,
        "tool_calls": list(run.tool_names),
        "handoffs": [h.to_agent for h in run.handoffs],
        "final_answer": run.final_answer,
        "complete": run.complete,
        "dialect": run.dialect,
        "start_time": iso_time(run.start_time_unix_nano),
        "duration_s": round(run.duration_s, 6),
        "input_tokens": run.input_tokens,
        "output_tokens": run.output_tokens,
        "error": f"{errors[0]['name']}: {errors[0]['message']}" if errors else None,
    }


def _messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    return [
        {"role": m.role, "parts": [dict(p) for p in m.parts]}
        | ({"name": m.name} if m.name else {})
        | ({"finish_reason": m.finish_reason} if m.finish_reason else {})
        for m in messages
    ]


def _node(span: Span, tree: TraceTree, start: int) -> dict[str, Any]:
    node: dict[str, Any] = {
        "span_id": span.span_id,
        "name": span.name,
        "operation": span.operation,
        "agent_name": span.agent_name,
        "status": span.status_code,
        "start_offset_s": round((span.start_time_unix_nano - start) / 1e9, 6) if start else None,
        "duration_s": round(span.duration_s, 6),
    }
    optional = {
        "status_message": _error_message(span) if span.is_error else span.status_message,
        "tool_name": span.tool_name,
        "tool_call_id": span.tool_call_id,
        "tool_arguments": span.tool_arguments,
        "tool_result": span.tool_result,
        "model": span.model,
        "input_tokens": span.input_tokens,
        "output_tokens": span.output_tokens,
        "input_messages": _messages(span.input_messages) or None,
        "output_messages": _messages(span.output_messages) or None,
    }
    node.update({k: v for k, v in optional.items() if v is not None})
    if span.output_messages:
        node["output"] = " | ".join(m.text for m in span.output_messages if m.text) or None
    node["children"] = [_node(c, tree, start) for c in tree.children.get(span.span_id, [])]
    return node


def run_tree(run: AgentRun, build: str) -> dict[str, Any]:
    """The ``traces show --format json`` document: the run summary and its span tree."""
    tree = TraceTree.build(run.trace_id, run.spans)
    return {
        **run_row(run, build),
        "completeness_reasons": list(run.completeness_reasons),
        "user_input": run.user_input,
        "errors": run_errors(run),
        "spans": [_node(top, tree, run.start_time_unix_nano) for top in tree.tops],
    }


def _payload(value: Any) -> str:
    """A stored payload as one line: JSON for structures, the text itself for a string."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _part(part: dict[str, Any]) -> str:
    kind = part.get("type")
    if kind == "text":
        return str(part.get("content", ""))
    if kind == "tool_call":
        return f"tool_call {part.get('name')} {_payload(part.get('arguments'))}"
    if kind == "tool_call_response":
        return f"tool result {_payload(part.get('response'))}"
    return _payload(part)


def _said(messages: list[dict[str, Any]]) -> str:
    return " | ".join(f"{m['role']}: {' '.join(_part(p) for p in m['parts'])}" for m in messages)


def _lines(node: dict[str, Any], depth: int, out: list[str]) -> None:
    pad = "  " * depth
    details = [f"[{node['operation']}]"]
    details.extend(
        f"{key.split('_')[0]}={node[key]}"
        for key in ("agent_name", "tool_name", "model")
        if node.get(key)
    )
    if "input_tokens" in node or "output_tokens" in node:
        details.append(f"tokens={node.get('input_tokens')}/{node.get('output_tokens')}")
    if node["status"] == "error":
        details.append(f"ERROR {node.get('status_message', 'error')}")
    offset = node["start_offset_s"]
    timing = f"+{offset:.3f}s " if offset is not None else ""
    out.append(
        f"{pad}- {node['name']} {' '.join(details)} "
        f"({node['span_id']}, {timing}{node['duration_s']:.3f}s)"
    )
    shown = (
        ("input", _said(node["input_messages"]) if "input_messages" in node else None),
        ("args", _payload(node["tool_arguments"]) if "tool_arguments" in node else None),
        ("result", _payload(node["tool_result"]) if "tool_result" in node else None),
        ("output", _said(node["output_messages"]) if "output_messages" in node else None),
    )
    out.extend(f"{pad}    {label}: {text}" for label, text in shown if text is not None)
    for child in node["children"]:
        _lines(child, depth + 1, out)


def render_text(document: dict[str, Any]) -> str:
    """The ``traces show --format text`` rendering of a ``run_tree`` document."""
    out = [
        f"trace {document['trace_id']}  build={document['build']}  "
        f"item={document['item_id']} run={document['run_index']}  "
        f"complete={document['complete']}",
        f"start {document['start_time'] or '-'}  duration {document['duration_s']:.3f}s  "
        f"tokens {document['input_tokens']} in / {document['output_tokens']} out",
        f"root agent: {document['root_agent']}  tools: {', '.join(document['tool_calls'])}  "
        f"handoffs: {', '.join(document['handoffs'])}",
    ]
    out.extend(f"  incomplete: {reason}" for reason in document["completeness_reasons"])
    for top in document["spans"]:
        _lines(top, 0, out)
    out.extend(f"errors: {e['name']}: {e['message']}" for e in document["errors"])
    out.append(f"final answer: {document['final_answer']}")
    return "\n".join(out)
