"""A recorded agent conversation (OpenAI-style messages) -> GenAI spans of one run.

Shape of the run: a root ``invoke_agent`` span carrying the eval context, one ``chat`` span per
assistant message the model produced (its input is the messages since the previous assistant
turn, its output the assistant message with any tool calls, its usage the recorded tokens),
and one ``execute_tool`` span per tool call, with the arguments and the result of the tool
message answering it. Ids are derived from the source and simulation id, so importing the same
file twice yields the same spans (and the store keeps one copy).
"""

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext, Message, Operation, Span, StatusCode
from eval_pipeline.traces.normalise.messages import json_or_text, message
from eval_pipeline.traces.semconv import TARGET_CONVENTION_VERSION


@dataclass(frozen=True)
class Turn:
    """One recorded message with its time and token usage (when recorded)."""

    raw: Mapping[str, Any]
    time_ns: int
    input_tokens: int | None = None
    output_tokens: int | None = None
    model_call: bool = True


def _hex(seed: str, size: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:size]


def conversation_spans(
    *,
    key: str,
    agent_name: str,
    model: str | None,
    turns: Sequence[Turn],
    context: EvalContext,
    dialect: str,
    root_attributes: Mapping[str, Any] | None = None,
) -> list[Span]:
    """The spans of one recorded run (see the module docstring)."""
    trace_id = _hex(f"trace:{key}", 32)
    root_id = _hex(f"span:{key}:root", 16)
    common: dict[str, Any] = {"dialect": dialect, "convention_version": TARGET_CONVENTION_VERSION}
    spans: list[Span] = []
    pending: list[Message] = []
    transcript: list[Message] = []
    results = {
        str(t.raw.get("tool_call_id") or t.raw.get("id")): t
        for t in turns
        if t.raw.get("role") == "tool"
    }
    last_ns = turns[0].time_ns if turns else 0
    final: Message | None = None
    for index, turn in enumerate(turns):
        role = str(turn.raw.get("role"))
        msg = message(turn.raw, role)
        if role == "tool":
            pending.append(msg)
            continue
        if role != "assistant" or not turn.model_call:
            pending.append(msg)
            if role in ("user", "assistant") and msg.text:
                transcript.append(msg)
            last_ns = max(last_ns, turn.time_ns)
            continue
        chat_id = _hex(f"span:{key}:{index}", 16)
        spans.append(
            Span(
                trace_id=trace_id,
                span_id=chat_id,
                parent_span_id=root_id,
                name=f"chat {model or 'unknown'}",
                kind="client",
                start_time_unix_nano=last_ns,
                end_time_unix_nano=max(turn.time_ns, last_ns),
                operation=Operation.CHAT,
                agent_name=agent_name,
                model=model,
                input_tokens=turn.input_tokens,
                output_tokens=turn.output_tokens,
                input_messages=tuple(pending),
                output_messages=(msg,),
                **common,
            )
        )
        pending = []
        if msg.text:
            transcript.append(msg)
            final = msg
        for call_index, call in enumerate(msg.tool_calls):
            answer = results.get(str(call.get("id")))
            end_ns = answer.time_ns if answer else turn.time_ns
            failed = bool(answer and answer.raw.get("error"))
            spans.append(
                Span(
                    trace_id=trace_id,
                    span_id=_hex(f"span:{key}:{index}:{call_index}", 16),
                    parent_span_id=root_id,
                    name=f"execute_tool {call.get('name')}",
                    start_time_unix_nano=turn.time_ns,
                    end_time_unix_nano=max(end_ns, turn.time_ns),
                    status_code=StatusCode.ERROR if failed else StatusCode.UNSET,
                    status_message=str(answer.raw.get("content"))[:200]
                    if failed and answer
                    else None,
                    operation=Operation.EXECUTE_TOOL,
                    agent_name=agent_name,
                    tool_name=str(call.get("name")),
                    tool_call_id=str(call.get("id")),
                    tool_arguments=call.get("arguments"),
                    tool_result=json_or_text(answer.raw.get("content")) if answer else None,
                    attributes={"gen_ai.tool.type": "function"},
                    **common,
                )
            )
        last_ns = max(last_ns, turn.time_ns)
    end_ns = max([s.end_time_unix_nano for s in spans] + [last_ns])
    attributes = {**eval_context.to_attributes(context), **(root_attributes or {})}
    inputs = tuple(m for m in transcript if m is not final)
    root = Span(
        trace_id=trace_id,
        span_id=root_id,
        parent_span_id=None,
        name=f"invoke_agent {agent_name}",
        start_time_unix_nano=turns[0].time_ns if turns else 0,
        end_time_unix_nano=end_ns,
        operation=Operation.INVOKE_AGENT,
        agent_name=agent_name,
        model=model,
        conversation_id=key,
        input_messages=inputs,
        output_messages=(final,) if final else (),
        attributes=attributes,
        **common,
    )
    return [root, *spans]


def reward_score(
    reward: Any,
    *,
    benchmark: str,
    metric_id: str,
    scorer_id: str,
    root: Span | None,
    build: str | None,
    item_id: str,
    run_index: int,
    evidence: dict[str, Any],
) -> Score:
    """The benchmark's own recorded reward as an imported score (``unscored`` when unusable)."""
    value = float(reward) if isinstance(reward, int | float) else None
    valid = value is not None and 0.0 <= value <= 1.0
    return Score(
        metric_id=metric_id,
        value=value if valid else None,
        status=ScoreStatus.SCORED if valid else ScoreStatus.UNSCORED,
        scorer_id=scorer_id,
        scorer_version=1,
        reason=f"reward recorded by {benchmark}"
        if valid
        else f"no usable reward recorded ({reward!r})",
        trace_id=root.trace_id if root else None,
        span_ids=(root.span_id,) if root else (),
        build=build,
        item_id=item_id,
        run_index=run_index,
        evidence=evidence,
    )
