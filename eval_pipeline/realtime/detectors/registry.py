"""The detector set both planes run, built in one place from ``DetectorConfig``."""

from collections.abc import Sequence

from eval_pipeline.realtime.detectors.config import DetectorConfig
from eval_pipeline.realtime.detectors.flag import Detector, Flag, Scope
from eval_pipeline.realtime.detectors.span_detectors import (
    ErrorStatusDetector,
    InjectionDetector,
    PolicyDetector,
    SpanLatencyDetector,
    ToolErrorDetector,
)
from eval_pipeline.realtime.detectors.trace_detectors import (
    ClaimedActionDetector,
    IncompleteTraceDetector,
    LongTrajectoryDetector,
    RepeatedCallDetector,
    RunCostDetector,
    RunLatencyDetector,
)
from eval_pipeline.suites.prices import PriceTable
from eval_pipeline.traces.model import AgentRun, Span


def default_detectors(config: DetectorConfig | None = None) -> tuple[Detector, ...]:
    """Every built-in detector, with the limits, patterns and budgets of ``config``."""
    config = config or DetectorConfig()
    policy, injection, budgets = config.policy, config.injection, config.budgets
    detectors: list[Detector] = [
        ToolErrorDetector(),
        ErrorStatusDetector(),
        PolicyDetector(
            policy.patterns,
            policy.forbidden_tools,
            policy.guardrail_spans,
            policy.guardrail_attributes,
        ),
        InjectionDetector(
            injection.canaries, tuple(c.as_forbidden_call() for c in injection.forbidden_calls)
        ),
        IncompleteTraceDetector(),
        LongTrajectoryDetector(config.trajectory.max_tool_calls),
        RepeatedCallDetector(config.trajectory.max_repeats),
        ClaimedActionDetector(),
    ]
    if budgets.max_span_s is not None:
        detectors.append(SpanLatencyDetector(budgets.max_span_s))
    if budgets.max_run_s is not None:
        detectors.append(RunLatencyDetector(budgets.max_run_s))
    if budgets.max_cost_usd is not None:
        detectors.append(
            RunCostDetector(budgets.max_cost_usd, PriceTable.load(budgets.price_table))
        )
    return tuple(detectors)


def detect(run: AgentRun, detectors: Sequence[Detector] | None = None) -> list[Flag]:
    """Every flag the detectors raise on a whole run, in detector order (batch replay)."""
    return [
        flag for detector in (detectors or default_detectors()) for flag in detector.detect(run)
    ]


def detect_span(span: Span, detectors: Sequence[Detector]) -> list[Flag]:
    """The flags the span-scope detectors raise on one arriving span."""
    return [
        flag
        for detector in detectors
        if detector.scope == Scope.SPAN
        for flag in detector.detect_span(span)
    ]


def detect_trace(run: AgentRun, detectors: Sequence[Detector]) -> list[Flag]:
    """The flags the trace-scope detectors raise on a completed run."""
    return [
        flag
        for detector in detectors
        if detector.scope == Scope.TRACE
        for flag in detector.detect(run)
    ]
