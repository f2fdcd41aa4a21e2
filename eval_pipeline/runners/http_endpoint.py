"""Run an agent behind an HTTP endpoint, propagating W3C ``traceparent``.

For each run the runner picks a trace id and a parent span id, POSTs the item as JSON with a
``traceparent`` header, and waits for the agent to export that trace to the runner's OTLP
receiver (``SpanReceiver``). The agent's root ``invoke_agent`` span is a child of the
runner's (never exported) parent span; it is re-rooted on collection, with the propagated
parent kept as ``eval_pipeline.runner.parent_span_id`` so the link stays auditable.

Request body: ``{"item": <DatasetItem JSON>, "eval_context": {...}, "seed": int,
"params": {...}, "otlp_traces_endpoint": URL}``; any 2xx answer is success, anything else fails
the run with its status. Agents export to their configured OTLP endpoint (pointed at the
runner's receiver) or, when they honour it, to ``otlp_traces_endpoint``. Without a receiver
given, the runner starts its own on a free loopback port.
"""

import dataclasses
import time
from collections.abc import Mapping
from typing import Any

import httpx

from eval_pipeline.datasets.codec import item_to_dict
from eval_pipeline.runners import failure
from eval_pipeline.runners.base import RunFailure, Runner, RunSpec
from eval_pipeline.runners.otlp_receiver import SpanReceiver
from eval_pipeline.runners.sink import RunSink
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import Span

PROPAGATED_PARENT = f"{eval_context.NAMESPACE}.runner.parent_span_id"


def traceparent(trace_id: str, span_id: str) -> str:
    """The W3C ``traceparent`` header value for a sampled span."""
    return f"00-{trace_id}-{span_id}-01"


class HttpEndpointRunner(Runner):
    """POSTs each item to ``url`` and collects the spans the agent exports to ``receiver``."""

    def __init__(
        self,
        url: str,
        receiver: SpanReceiver | None = None,
        *,
        params: Mapping[str, Any] | None = None,
        sink: RunSink | None = None,
        timeout_s: float = 60.0,
        settle_s: float = 0.2,
    ) -> None:
        super().__init__(sink=sink, timeout_s=timeout_s)
        self.url = url
        self._owns_receiver = receiver is None
        self.receiver = receiver if receiver is not None else SpanReceiver().start()
        self.params = dict(params or {})
        self.settle_s = settle_s

    def close(self) -> None:
        """Stop the receiver this runner started (a receiver passed in is left running)."""
        if self._owns_receiver:
            self.receiver.stop()
            self._owns_receiver = False

    def execute(self, spec: RunSpec) -> list[Span]:
        """One POST, then collect the trace from the receiver."""
        started = time.monotonic()
        trace_id, parent_id = failure.new_trace_id(), failure.new_span_id()
        waiter = self.receiver.expect(trace_id)
        try:
            body = {
                "item": item_to_dict(spec.item),
                "eval_context": eval_context.to_attributes(spec.context),
                "seed": spec.seed,
                "params": self.params,
                "otlp_traces_endpoint": self.receiver.endpoint,
            }
            try:
                response = httpx.post(
                    self.url,
                    json=body,
                    timeout=spec.timeout_s,
                    headers={"traceparent": traceparent(trace_id, parent_id)},
                )
            except httpx.HTTPError as exc:
                raise RunFailure(
                    failure.FailureKind.HTTP_ERROR,
                    f"POST {self.url} failed: {type(exc).__name__}: {exc}",
                ) from exc
            if not response.is_success:
                raise RunFailure(
                    failure.FailureKind.HTTP_ERROR,
                    f"POST {self.url} answered {response.status_code}: {response.text[:200]}",
                )
            # Leave the runner's own timeout a margin, so "exported nothing" is reported as
            # such rather than as a hang.
            remaining = spec.timeout_s * 0.9 - (time.monotonic() - started)
            spans = waiter.wait_for_root(
                parent_id, timeout_s=max(0.0, remaining), settle_s=self.settle_s
            )
        finally:
            self.receiver.forget(trace_id)
        return [_reroot(span, parent_id) for span in spans]


def _reroot(span: Span, propagated_parent: str) -> Span:
    if span.parent_span_id != propagated_parent:
        return span
    return dataclasses.replace(
        span,
        parent_span_id=None,
        attributes={**span.attributes, PROPAGATED_PARENT: propagated_parent},
    )
