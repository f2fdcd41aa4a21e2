"""How a failed run is recorded: a synthetic ``invoke_agent`` root span with status error.

Choosing a span over a separate ledger table keeps one source of truth: the trace store. A
failed run then looks like any other run to resumption (it is stored, so not redone unless
asked), to trace listings (the reason is on the span) and to scoring (``AgentRun.error`` is
set, so every metric becomes an ``error`` row and the gate counts it as missing).
"""

import os
import time
from collections.abc import Iterable

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext, Operation, Span, StatusCode

FAILURE_REASON = f"{eval_context.NAMESPACE}.run.failure_reason"
"""Root-span attribute naming why a run failed (raise, timeout, no spans)."""

FAILURE_KIND = f"{eval_context.NAMESPACE}.run.failure_kind"
"""Root-span attribute with a short machine-readable failure kind."""

SYNTHETIC = f"{eval_context.NAMESPACE}.run.synthetic"
"""True on spans the runner made up (the failure root), never on agent spans."""


class FailureKind:
    """Values of ``FAILURE_KIND``."""

    RAISED = "raised"
    TIMEOUT = "timeout"
    NO_SPANS = "no_spans"
    NO_ROOT = "no_invoke_agent_root"
    HTTP_ERROR = "http_error"
    NOT_RECORDED = "not_recorded"


def new_trace_id() -> str:
    """A random 128-bit trace id in lowercase hex."""
    return os.urandom(16).hex()


def new_span_id() -> str:
    """A random 64-bit span id in lowercase hex."""
    return os.urandom(8).hex()


def failure_root_span(
    context: EvalContext,
    *,
    kind: str,
    reason: str,
    started_ns: int,
    ended_ns: int | None = None,
    trace_id: str | None = None,
    agent_name: str | None = None,
) -> Span:
    """The synthetic root span that records one failed run."""
    attributes: dict[str, object] = dict(eval_context.to_attributes(context))
    attributes.update(
        {FAILURE_REASON: reason, FAILURE_KIND: kind, SYNTHETIC: True, "error.type": kind}
    )
    return Span(
        trace_id=trace_id or new_trace_id(),
        span_id=new_span_id(),
        parent_span_id=None,
        name=f"invoke_agent {agent_name}" if agent_name else "invoke_agent",
        start_time_unix_nano=started_ns,
        end_time_unix_nano=ended_ns if ended_ns is not None else time.time_ns(),
        status_code=StatusCode.ERROR,
        status_message=reason,
        operation=Operation.INVOKE_AGENT,
        agent_name=agent_name,
        attributes=attributes,
    )


def failure_reason(spans: Iterable[Span]) -> str | None:
    """The recorded failure reason of a run's spans, or None when the run did not fail."""
    for span in spans:
        reason = span.attributes.get(FAILURE_REASON)
        if reason is not None:
            return str(reason)
    return None
