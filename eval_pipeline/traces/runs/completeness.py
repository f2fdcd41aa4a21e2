"""Is a trace complete enough to score? Per-trace reasons, each naming the span at fault.

A trace is complete when it has a root ``invoke_agent`` span (or, with none, a top workflow
span: an OpenInference CHAIN, LangChain's runnables), exactly one root, no span is its own
parent, every parent resolves and leads to a root (no parent cycle), every tool call the model
requested has an ``execute_tool`` span (a requested hand-off is satisfied by the hand-off),
when the models' requests are recorded every tool execution answers one, every inference span
reports token usage (an inference span that failed is exempt: it never produced output), and
every span ended.

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
    own_parents = [s for s in tree.cyclic if s.parent_span_id == s.span_id]
    reasons.extend(f"span {s.span_id} ({s.name}) is its own parent" for s in own_parents)
    looping = [s.span_id for s in tree.cyclic if s.parent_span_id != s.span_id]
    if looping:
        reasons.append(f"parent cycle: spans {', '.join(looping)} lead to no root")
    reasons.extend(
        f"span {span.span_id} ({span.name}): parent {span.parent_span_id} is missing"
        for span in tree.orphans
        if tree.root is None or span.span_id != tree.root.span_id
    )
    reasons.extend(unexecuted(request) for request in requests if request.matched_by is None)
    if requests:
        answered = {request.matched_by for request in requests}
        reasons.extend(
            unrequested(span.span_id, span.tool_name or span.name)
            for span in tree.ordered
            if span.operation == Operation.EXECUTE_TOOL and span.span_id not in answered
        )
    reasons.extend(
        no_usage(span.span_id, span.name)
        for span in tree.ordered
        if span.operation in Operation.INFERENCE
        and not span.is_error
        and (span.input_tokens is None or span.output_tokens is None)
    )
    reasons.extend(
        unended(span.span_id, span.name) for span in tree.ordered if not span.end_time_unix_nano
    )
    return tuple(reasons)


def unrequested(span_id: str, tool: str) -> str:
    """The reason for a tool execution that answers none of the recorded model requests."""
    return f"tool execution {tool} (span {span_id}) was not requested by any model call"


def unended(span_id: str, name: str) -> str:
    """The reason for a span that never ended (no end time: the run was cut off)."""
    return f"span {span_id} ({name}) never ended"


def unexecuted(request: Request) -> str:
    """The reason for a requested tool call no ``execute_tool`` span (or hand-off) answered."""
    return (
        f"tool call {request.name} ({request.call_id or 'no call id'}) requested by span "
        f"{request.span_id} has no execute_tool span"
    )


def no_usage(span_id: str, name: str) -> str:
    """The reason for a successful inference span that reports no token usage."""
    return f"inference span {span_id} ({name}) has no token usage"
