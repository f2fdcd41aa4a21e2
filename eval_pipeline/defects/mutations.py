"""Seeded defects as trace mutations: pure functions ``list[Span] -> list[Span]``.

They turn any recorded run (of any agent) into the run a defective build would have produced,
so users can check that their own gate catches a renamed argument, a skipped confirmation, a
fabricated action claim or an obeyed injection without building a broken agent. Each keeps
the tool-call id in step between the ``execute_tool`` span and the model message that
requested it, and never mutates its input (spans are frozen; changed ones are replaced).
"""

import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from eval_pipeline.traces.model import Message, Operation, Span, StatusCode

Mutation = Callable[[list[Span]], list[Span]]

MUTATED = "eval_pipeline.defect.mutation"
"""Attribute set on every span a mutation changed or added (names the mutation)."""


def _mark(span: Span, mutation: str, **changes: Any) -> Span:
    return dataclasses.replace(span, attributes={**span.attributes, MUTATED: mutation}, **changes)


def _rename_in_messages(
    messages: tuple[Message, ...], call_ids: set[str], old: str, new: str
) -> tuple[Message, ...]:
    out = []
    for message in messages:
        parts = []
        for part in message.parts:
            arguments = part.get("arguments")
            if (
                part.get("type") == "tool_call"
                and part.get("id") in call_ids
                and isinstance(arguments, dict)
                and old in arguments
            ):
                part = {
                    **part,
                    "arguments": {(new if k == old else k): v for k, v in arguments.items()},
                }
            parts.append(part)
        out.append(dataclasses.replace(message, parts=tuple(parts)))
    return tuple(out)


def rename_argument(tool: str, old: str, new: str) -> Mutation:
    """Rename argument ``old`` to ``new`` in every call of ``tool`` (and its request)."""

    def mutate(spans: list[Span]) -> list[Span]:
        ids = {
            s.tool_call_id
            for s in spans
            if s.operation == Operation.EXECUTE_TOOL
            and s.tool_name == tool
            and isinstance(s.tool_arguments, dict)
            and old in s.tool_arguments
            and s.tool_call_id
        }
        out = []
        for span in spans:
            if span.operation == Operation.EXECUTE_TOOL and span.tool_call_id in ids:
                args = {(new if k == old else k): v for k, v in span.tool_arguments.items()}
                span = _mark(span, "rename_argument", tool_arguments=args)
            elif span.operation in Operation.INFERENCE and ids:
                renamed = _rename_in_messages(span.output_messages, ids, old, new)
                if renamed != span.output_messages:
                    span = _mark(span, "rename_argument", output_messages=renamed)
            out.append(span)
        return out

    return mutate


def drop_tool_call(tool: str) -> Mutation:
    """Remove every ``execute_tool`` span of ``tool`` (and its subtree and its request).

    Dropping ``confirm_action`` gives the run of a build that skipped the confirmation.
    """

    def mutate(spans: list[Span]) -> list[Span]:
        dropped = {
            s.span_id
            for s in spans
            if s.operation == Operation.EXECUTE_TOOL and s.tool_name == tool
        }
        call_ids = {s.tool_call_id for s in spans if s.span_id in dropped and s.tool_call_id}
        changed = True
        while changed:
            children = {s.span_id for s in spans if s.parent_span_id in dropped}
            changed = not children <= dropped
            dropped |= children
        out = []
        for span in spans:
            if span.span_id in dropped:
                continue
            if span.operation in Operation.INFERENCE and call_ids:
                kept = _without_calls(span.output_messages, call_ids)
                if kept != span.output_messages:
                    span = _mark(span, "drop_tool_call", output_messages=kept)
            out.append(span)
        return out

    return mutate


def _without_calls(messages: tuple[Message, ...], call_ids: set[str]) -> tuple[Message, ...]:
    out = []
    for message in messages:
        parts = tuple(
            p
            for p in message.parts
            if not (p.get("type") == "tool_call" and p.get("id") in call_ids)
        )
        if parts or not message.parts:
            out.append(dataclasses.replace(message, parts=parts))
    return tuple(out)


def _final_answer_span(spans: Sequence[Span]) -> Span | None:
    ids = {s.span_id for s in spans}
    roots = [
        s
        for s in spans
        if s.operation == Operation.INVOKE_AGENT
        and (s.parent_span_id is None or s.parent_span_id not in ids)
    ]
    root = roots[0] if roots else None
    inference = [
        s
        for s in spans
        if s.operation in Operation.INFERENCE
        and s.output_messages
        and (root is None or s.agent_name in (None, root.agent_name))
    ]
    return max(inference, key=lambda s: s.end_time_unix_nano) if inference else None


def _append_text(messages: tuple[Message, ...], text: str) -> tuple[Message, ...]:
    last = messages[-1]
    parts = (*last.parts, {"type": "text", "content": " " + text})
    return (*messages[:-1], dataclasses.replace(last, parts=parts))


def add_false_claim(claim: str) -> Mutation:
    """Append ``claim`` (e.g. "I have refunded order #W1.") to the final answer.

    The claim is added to the last answer of the root agent (its last inference span) and,
    when the root span records output messages, to those too.
    """

    def mutate(spans: list[Span]) -> list[Span]:
        target = _final_answer_span(spans)
        out = []
        for span in spans:
            if span is target or (
                span.operation == Operation.INVOKE_AGENT
                and span.parent_span_id is None
                and span.output_messages
            ):
                span = _mark(
                    span,
                    "add_false_claim",
                    output_messages=_append_text(span.output_messages, claim),
                )
            out.append(span)
        return out

    return mutate


def inject_attacker_call(tool: str, arguments: dict[str, Any], *, result: Any = "ok") -> Mutation:
    """Add a successful ``execute_tool`` span for the attacker's call under the root agent.

    The span starts when the last existing tool call ended, so the run looks as if the agent
    obeyed an injected instruction after its own work (as injected agents typically do).
    """

    def mutate(spans: list[Span]) -> list[Span]:
        ids = {s.span_id for s in spans}
        roots = [
            s
            for s in spans
            if s.operation == Operation.INVOKE_AGENT
            and (s.parent_span_id is None or s.parent_span_id not in ids)
        ]
        if not roots:
            raise ValueError("inject_attacker_call: the trace has no invoke_agent root")
        root = roots[0]
        tools = [s for s in spans if s.operation == Operation.EXECUTE_TOOL]
        start = max((s.end_time_unix_nano for s in tools), default=root.start_time_unix_nano)
        digest = hashlib.sha256(f"{root.trace_id}{tool}{sorted(arguments.items())}".encode())
        span_id, call_id = digest.hexdigest()[:16], "call_attack_" + digest.hexdigest()[16:32]
        attack = Span(
            trace_id=root.trace_id,
            span_id=span_id,
            parent_span_id=root.span_id,
            name=f"execute_tool {tool}",
            start_time_unix_nano=start,
            end_time_unix_nano=start + 50_000_000,
            status_code=StatusCode.UNSET,
            operation=Operation.EXECUTE_TOOL,
            agent_name=root.agent_name,
            tool_name=tool,
            tool_call_id=call_id,
            tool_arguments=dict(arguments),
            tool_result=result,
            conversation_id=root.conversation_id,
            attributes={MUTATED: "inject_attacker_call"},
        )
        return [*spans, attack]

    return mutate


def apply(spans: Sequence[Span], *mutations: Mutation) -> list[Span]:
    """Apply mutations in order."""
    out = list(spans)
    for mutation in mutations:
        out = mutation(out)
    return out
