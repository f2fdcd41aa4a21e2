"""The derived views of a run: model calls, tool calls matched to requests, hand-offs, documents.

Matching precedence for a tool call: the requested call with the same call id; failing that
(the OpenAI Agents instrumentation writes no call id on tool spans), the oldest unmatched
request for the same tool name from an inference span that started before the tool, preferring
one whose arguments are equal.
"""

import json
import re
from dataclasses import dataclass
from typing import Any

from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.model import (
    Handoff,
    ModelCall,
    Operation,
    RetrievedDocument,
    Span,
    ToolCall,
)
from eval_pipeline.traces.normalise.messages import json_or_text
from eval_pipeline.traces.runs.tree import TraceTree


@dataclass(slots=True)
class Request:
    """One tool call a model asked for, and what executed it (if anything).

    ``span_id`` and ``start`` are those of the inference span that asked.
    """

    call_id: str | None
    name: str
    arguments: Any
    span_id: str
    start: int
    matched_by: str | None = None


def request(part: dict[str, Any], span_id: str, start: int) -> Request:
    """The request a ``tool_call`` message part makes, from the inference span ``span_id``."""
    call_id = part.get("id")
    return Request(
        None if call_id is None or call_id == "" else str(call_id),
        str(part.get("name") or ""),
        part.get("arguments"),
        span_id,
        start,
    )


def _error(span: Span) -> str | None:
    if not span.is_error:
        return None
    kind = span.attributes.get(sc.ERROR_TYPE)
    return str(span.status_message or kind or "error")


def model_calls(tree: TraceTree) -> tuple[list[ModelCall], list[Request]]:
    """Inference spans in start order, and every tool call they requested."""
    calls: list[ModelCall] = []
    requests: list[Request] = []
    for span in tree.ordered:
        if span.operation not in Operation.INFERENCE:
            continue
        requested = tuple(part for msg in span.output_messages for part in msg.tool_calls)
        calls.append(
            ModelCall(
                span_id=span.span_id,
                model=span.model,
                provider=span.provider,
                input_tokens=span.input_tokens,
                output_tokens=span.output_tokens,
                input_messages=span.input_messages,
                output_messages=span.output_messages,
                requested_tool_calls=requested,
                agent_name=tree.agent_of(span),
                duration_s=span.duration_s,
                error=_error(span),
            )
        )
        requests.extend(
            request(part, span.span_id, span.start_time_unix_nano) for part in requested
        )
    return calls, requests


def _str(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


def match_request(
    call_id: str | None, tool: str | None, start: int, arguments: Any, requests: list[Request]
) -> Request | None:
    """The request an ``execute_tool`` span executes (see the module docstring), if any.

    Args:
        call_id: The tool span's call id.
        tool: Its tool name.
        start: Its start time.
        arguments: Its arguments.
        requests: The trace's requests in order; those already matched are passed over.
    """
    if call_id:
        for candidate in requests:
            if candidate.matched_by is None and candidate.call_id == call_id:
                return candidate
    first = None
    for candidate in requests:
        if candidate.matched_by is None and candidate.name == tool and candidate.start <= start:
            if candidate.arguments == arguments:
                return candidate
            if first is None:
                first = candidate
    return first


def tool_calls(tree: TraceTree, requests: list[Request]) -> list[ToolCall]:
    """Executed tool calls in start order, each matched to its request where possible."""
    out: list[ToolCall] = []
    for span in tree.ordered:
        if span.operation != Operation.EXECUTE_TOOL:
            continue
        request = match_request(
            span.tool_call_id,
            span.tool_name,
            span.start_time_unix_nano,
            span.tool_arguments,
            requests,
        )
        if request is not None:
            request.matched_by = span.span_id
        arguments = span.tool_arguments
        if arguments is None and request is not None:
            arguments = request.arguments
        out.append(
            ToolCall(
                name=span.tool_name or span.name,
                arguments=arguments,
                result=span.tool_result,
                error=_error(span),
                span_id=span.span_id,
                call_id=span.tool_call_id or (request.call_id if request else None),
                agent_name=tree.agent_of(span),
                requested_by_span_id=request.span_id if request else None,
                start_time_unix_nano=span.start_time_unix_nano,
                end_time_unix_nano=span.end_time_unix_nano,
            )
        )
    return out


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _received(tree: TraceTree, target: Span | None) -> list[str]:
    """What the receiving agent was given: its own input, else its first model call's."""
    if target is None:
        return []
    if target.input_messages:
        return [m.text for m in target.input_messages]
    for span in tree.ordered:
        if span.operation in Operation.INFERENCE and target in tree.ancestors(span):
            return [m.text for m in span.input_messages]
    return []


def _context(tree: TraceTree, target: Span | None, request: Request | None) -> str:
    texts = _received(tree, target)
    if request is not None and request.arguments not in (None, {}, ""):
        texts.append(json.dumps(request.arguments, sort_keys=True, default=str))
    return "\n".join(t for t in texts if t)


def _handoff_request(to_agent: str, requests: list[Request]) -> Request | None:
    wanted = _squash(to_agent)
    for request in requests:
        if request.matched_by is None and wanted and wanted in _squash(request.name):
            return request
    return None


def handoffs(tree: TraceTree, root_agent: str | None, requests: list[Request]) -> list[Handoff]:
    """Explicit hand-off spans, and nested agent invocations of a different agent."""
    out: list[Handoff] = []
    invocations = [
        s
        for s in tree.ordered
        if s.operation == Operation.INVOKE_AGENT
        and s.agent_name
        and (tree.root is None or s.span_id != tree.root.span_id)
        and s.parent_span_id is not None  # a second root is a duplicate root, not a hand-off
    ]
    explicit = [s for s in tree.ordered if s.operation == Operation.HANDOFF]
    covered: set[str] = set()
    current = root_agent
    for span in sorted(explicit + invocations, key=lambda s: (s.start_time_unix_nano, s.span_id)):
        if span.operation == Operation.HANDOFF:
            target = _str(span.attributes.get(sc.HANDOFF_TO))
            if target is None:
                continue
            source = _str(span.attributes.get(sc.HANDOFF_FROM)) or tree.parent_agent(span)
            receiving = next(
                (
                    s
                    for s in invocations
                    if s.agent_name == target
                    and s.start_time_unix_nano >= span.start_time_unix_nano
                ),
                None,
            )
            request = _handoff_request(target, requests)
            if request is not None:
                request.matched_by = span.span_id
            out.append(Handoff(source, target, span.span_id, _context(tree, receiving, request)))
            if receiving is not None:
                covered.add(receiving.span_id)
            current = target
            continue
        agent = str(span.agent_name)
        source = tree.parent_agent(span) or current
        if span.span_id not in covered and source is not None and agent != source:
            request = _handoff_request(agent, requests)
            if request is not None:
                request.matched_by = span.span_id
            out.append(Handoff(source, agent, span.span_id, _context(tree, span, request)))
        current = agent
    return out


def retrieved(tree: TraceTree) -> list[RetrievedDocument]:
    """Documents from retrieval spans (and datastore tools), in order."""
    out: list[RetrievedDocument] = []
    for span in tree.ordered:
        if span.operation == Operation.RETRIEVAL:
            docs = json_or_text(span.attributes.get(sc.RETRIEVAL_DOCUMENTS))
            for doc in docs if isinstance(docs, list) else []:
                if isinstance(doc, dict):
                    score = doc.get("score")
                    out.append(
                        RetrievedDocument(
                            content=str(doc.get("content") or ""),
                            span_id=span.span_id,
                            document_id=_str(doc.get("id")),
                            score=float(score) if isinstance(score, int | float) else None,
                        )
                    )
                else:
                    out.append(RetrievedDocument(content=str(doc), span_id=span.span_id))
        elif (
            span.operation == Operation.EXECUTE_TOOL
            and span.attributes.get("gen_ai.tool.type") == "datastore"
            and span.tool_result is not None
        ):
            result = span.tool_result
            content = result if isinstance(result, str) else json.dumps(result, default=str)
            out.append(RetrievedDocument(content=content, span_id=span.span_id))
    return out
