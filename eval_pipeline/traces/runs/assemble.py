"""Spans -> agent runs (one per trace) with their derived views, and runs -> sessions.

Robust to out-of-order, duplicate (idempotent by span id), orphaned and late spans and to
several roots: a run is rebuilt from whatever spans of the trace are present, and
``complete`` / ``completeness_reasons`` say what is missing.
"""

from collections.abc import Iterable
from itertools import chain

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import AgentRun, Message, Operation, Span
from eval_pipeline.traces.runs.completeness import completeness_reasons
from eval_pipeline.traces.runs.tree import TraceTree
from eval_pipeline.traces.runs.views import handoffs, model_calls, retrieved, tool_calls


def _answer(messages: Iterable[Message]) -> str | None:
    texts = [m.text for m in messages if m.role == "assistant" and m.text.strip()]
    return texts[-1] if texts else None


def _final_answer(tree: TraceTree) -> tuple[str | None, str | None]:
    if tree.root is not None:
        text = _answer(tree.root.output_messages)
        if text is not None:
            return text, tree.root.span_id
    by_end = sorted(tree.ordered, key=lambda s: (s.end_time_unix_nano, s.start_time_unix_nano))
    for wanted in (Operation.INFERENCE, frozenset({Operation.INVOKE_AGENT})):
        for span in reversed(by_end):
            if span.operation in wanted:
                text = _answer(span.output_messages)
                if text is not None:
                    return text, span.span_id
    return None, None


def _user_input(tree: TraceTree) -> str | None:
    sources = [tree.root] if tree.root is not None else []
    sources += [s for s in tree.ordered if s.operation in Operation.INFERENCE]
    for span in sources:
        for msg in span.input_messages:
            if msg.role == "user" and msg.text:
                return msg.text
    return None


def _context_span(tree: TraceTree) -> Span | None:
    for span in chain([tree.root] if tree.root else [], tree.tops, tree.ordered):
        if any(key in span.attributes for key in eval_context.ALL_KEYS):
            return span
    return tree.root


def assemble_run(trace_id: str, spans: Iterable[Span]) -> AgentRun:
    """The run of one trace (all ``spans`` must belong to it)."""
    tree = TraceTree.build(trace_id, spans)
    root = tree.root
    calls, requests = model_calls(tree)
    tools = tool_calls(tree, requests)
    root_agent = (root.agent_name if root else None) or next(
        (
            s.agent_name
            for s in tree.ordered
            if s.operation == Operation.INVOKE_AGENT and s.agent_name
        ),
        None,
    )
    passes = handoffs(tree, root_agent, requests)
    reasons = completeness_reasons(tree, requests)
    answer, answer_span = _final_answer(tree)
    context_span = _context_span(tree)
    starts = [s.start_time_unix_nano for s in tree.ordered if s.start_time_unix_nano]
    ends = [s.end_time_unix_nano for s in tree.ordered if s.end_time_unix_nano]
    dialects = [s.dialect for s in tree.ordered]
    conversation = (root.conversation_id if root else None) or next(
        (s.conversation_id for s in tree.ordered if s.conversation_id), None
    )
    error = None
    if root is not None and root.is_error:
        error = root.status_message or str(root.attributes.get("error.type", "error"))
    return AgentRun(
        trace_id=trace_id,
        root_span_id=root.span_id if root else None,
        spans=tuple(tree.ordered),
        tool_calls=tuple(tools),
        model_calls=tuple(calls),
        handoffs=tuple(passes),
        retrieved=tuple(retrieved(tree)),
        user_input=_user_input(tree),
        final_answer=answer,
        final_answer_span_id=answer_span,
        root_agent=root_agent,
        conversation_id=conversation,
        eval_context=eval_context.from_attributes(context_span.attributes if context_span else {}),
        start_time_unix_nano=min(starts, default=0),
        end_time_unix_nano=max(ends, default=0),
        input_tokens=sum(c.input_tokens or 0 for c in calls),
        output_tokens=sum(c.output_tokens or 0 for c in calls),
        complete=not reasons,
        completeness_reasons=reasons,
        dialect=(root.dialect if root else max(set(dialects), key=dialects.count))
        if dialects
        else "otel-genai",
        error=error,
    )


def assemble_runs(spans: Iterable[Span]) -> list[AgentRun]:
    """One run per trace id, ordered by start time (then trace id)."""
    by_trace: dict[str, list[Span]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    runs = [assemble_run(trace_id, group) for trace_id, group in by_trace.items()]
    return sorted(runs, key=lambda r: (r.start_time_unix_nano, r.trace_id))


def group_sessions(runs: Iterable[AgentRun]) -> dict[str, list[AgentRun]]:
    """Runs by conversation id (``gen_ai.conversation.id`` / OpenInference ``session.id``).

    Each session's runs are in start order, so a judge can be given the conversation so far.
    Runs without a conversation id belong to no session and are left out.
    """
    sessions: dict[str, list[AgentRun]] = {}
    for run in runs:
        if run.conversation_id:
            sessions.setdefault(run.conversation_id, []).append(run)
    for members in sessions.values():
        members.sort(key=lambda r: (r.start_time_unix_nano, r.trace_id))
    return sessions
