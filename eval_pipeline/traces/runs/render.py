"""Runs rendered for people and scripts: the ``traces list`` row and the ``traces show`` tree."""

from typing import Any

from eval_pipeline.traces.model import AgentRun, Span
from eval_pipeline.traces.runs.tree import TraceTree


def run_row(run: AgentRun, build: str) -> dict[str, Any]:
    """One ``traces list`` object (**contract**, DESIGN.md section 9)."""
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
    }


def _node(span: Span, tree: TraceTree) -> dict[str, Any]:
    node: dict[str, Any] = {
        "span_id": span.span_id,
        "name": span.name,
        "operation": span.operation,
        "agent_name": span.agent_name,
        "status": span.status_code,
        "duration_s": round(span.duration_s, 6),
    }
    optional = {
        "tool_name": span.tool_name,
        "tool_call_id": span.tool_call_id,
        "tool_arguments": span.tool_arguments,
        "tool_result": span.tool_result,
        "model": span.model,
        "input_tokens": span.input_tokens,
        "output_tokens": span.output_tokens,
    }
    node.update({k: v for k, v in optional.items() if v is not None})
    if span.output_messages:
        node["output"] = " | ".join(m.text for m in span.output_messages if m.text) or None
    node["children"] = [_node(child, tree) for child in tree.children.get(span.span_id, [])]
    return node


def run_tree(run: AgentRun, build: str) -> dict[str, Any]:
    """The ``traces show --format json`` document: the run summary and its span tree."""
    tree = TraceTree.build(run.trace_id, run.spans)
    return {
        **run_row(run, build),
        "completeness_reasons": list(run.completeness_reasons),
        "input_tokens": run.input_tokens,
        "output_tokens": run.output_tokens,
        "duration_s": round(run.duration_s, 6),
        "spans": [_node(top, tree) for top in tree.tops],
    }


def _lines(node: dict[str, Any], depth: int, out: list[str]) -> None:
    details = [f"[{node['operation']}]"]
    details.extend(
        f"{key.split('_')[0]}={node[key]}"
        for key in ("agent_name", "tool_name", "model")
        if node.get(key)
    )
    if "input_tokens" in node or "output_tokens" in node:
        details.append(f"tokens={node.get('input_tokens')}/{node.get('output_tokens')}")
    if node["status"] == "error":
        details.append("ERROR")
    out.append(
        f"{'  ' * depth}- {node['name']} {' '.join(details)} "
        f"({node['span_id']}, {node['duration_s']:.3f}s)"
    )
    if "tool_arguments" in node:
        out.append(f"{'  ' * depth}    args: {node['tool_arguments']}")
    for child in node["children"]:
        _lines(child, depth + 1, out)


def render_text(document: dict[str, Any]) -> str:
    """The ``traces show --format text`` rendering of a ``run_tree`` document."""
    out = [
        f"trace {document['trace_id']}  build={document['build']}  "
        f"item={document['item_id']} run={document['run_index']}  "
        f"complete={document['complete']}",
        f"root agent: {document['root_agent']}  tools: {', '.join(document['tool_calls'])}  "
        f"handoffs: {', '.join(document['handoffs'])}",
    ]
    out.extend(f"  incomplete: {reason}" for reason in document["completeness_reasons"])
    for top in document["spans"]:
        _lines(top, 0, out)
    out.append(f"final answer: {document['final_answer']}")
    return "\n".join(out)
