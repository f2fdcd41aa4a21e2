"""Is a trace complete enough to score? Per-trace reasons, each naming the span at fault.

A trace is complete when it has a root ``invoke_agent`` span, exactly one root, every parent
resolves, every tool call the model requested has an ``execute_tool`` span (a requested
hand-off is satisfied by the hand-off), and every inference span reports token usage (an
inference span that failed is exempt: it never produced output).

Ingest judges the traces of each batch by the same rules without assembling them, where it
can (``traces.ingest.completeness``); a change here changes both, and
``eval_pipeline_tests/traces/ingest/test_completeness.py`` holds the two equal.
"""

from collections.abc import Sequence

from eval_pipeline.traces.model import Operation
from eval_pipeline.traces.runs.tree import TraceTree
from eval_pipeline.traces.runs.views import Request

NO_ROOT = "no invoke_agent span: the trace has no agent run root"


def completeness_reasons(tree: TraceTree, requests: Sequence[Request]) -> tuple[str, ...]:
    """Why the trace is incomplete; empty when it is complete."""
    reasons: list[str] = []
    if tree.root is None:
        reasons.append(NO_ROOT)
    elif tree.root.parent_span_id is not None and tree.root.parent_span_id not in tree.spans:
        reasons.append(
            f"root invoke_agent span {tree.root.span_id} has parent "
            f"{tree.root.parent_span_id}, which is missing"
        )
    true_roots = [s for s in tree.tops if s.parent_span_id is None]
    if len(true_roots) > 1:
        ids = ", ".join(s.span_id for s in true_roots)
        reasons.append(f"{len(true_roots)} root spans ({ids})")
    reasons.extend(
        f"span {span.span_id} ({span.name}): parent {span.parent_span_id} is missing"
        for span in tree.orphans
        if tree.root is None or span.span_id != tree.root.span_id
    )
    reasons.extend(unexecuted(request) for request in requests if request.matched_by is None)
    reasons.extend(
        no_usage(span.span_id, span.name)
        for span in tree.ordered
        if span.operation in Operation.INFERENCE
        and not span.is_error
        and (span.input_tokens is None or span.output_tokens is None)
    )
    return tuple(reasons)


def unexecuted(request: Request) -> str:
    """The reason for a requested tool call no ``execute_tool`` span (or hand-off) answered."""
    return (
        f"tool call {request.name} ({request.call_id or 'no call id'}) requested by span "
        f"{request.span_id} has no execute_tool span"
    )


def no_usage(span_id: str, name: str) -> str:
    """The reason for a successful inference span that reports no token usage."""
    return f"inference span {span_id} ({name}) has no token usage"
