"""Which tool calls had their arguments dropped by the redaction policy before storage.

A policy that does not keep a tool's arguments drops them and records it on the span
(``DROPPED`` lists ``tool_arguments``, ``POLICY`` names the policy; ``traces.redact``). Such a
call's arguments are unknown, not empty: scorers that check arguments say they cannot score
the call, naming the policy, instead of reporting every parameter missing.
"""

from collections.abc import Iterable

from eval_pipeline.traces.model import AgentRun, ToolCall
from eval_pipeline.traces.redact.redactor import DROPPED, POLICY

_ARGUMENTS = "tool_arguments"


def dropping_policy(run: AgentRun, call: ToolCall) -> str | None:
    """The name of the policy that dropped ``call``'s arguments, or None when they are known."""
    if call.arguments is not None:
        return None
    span = run.span(call.span_id)
    if span is None:
        return None
    dropped = span.attributes.get(DROPPED)
    if not isinstance(dropped, list | tuple) or _ARGUMENTS not in dropped:
        return None
    return str(span.attributes.get(POLICY) or "unnamed")


def redaction_reason(run: AgentRun, calls: Iterable[ToolCall]) -> str | None:
    """Why the arguments of ``calls`` cannot be checked (None when none was dropped)."""
    policies = sorted({p for c in calls if (p := dropping_policy(run, c)) is not None})
    if not policies:
        return None
    named = ", ".join(f"redaction policy {p!r}" for p in policies)
    return f"tool arguments were dropped before storage by the {named}: cannot check them"
