"""The built-in detectors over completed runs: cheap structural signals, no judge.

Each is linear in the run's spans, so the real-time plane can run all of them per trace.
"""

import json
from collections import Counter
from dataclasses import dataclass

from eval_pipeline.detectors.flag import Flag, Severity
from eval_pipeline.traces.model import AgentRun, Operation


@dataclass(frozen=True)
class ToolErrorDetector:
    """A tool call returned an error (the run may still have answered confidently)."""

    id: str = "tool_error@1"

    def detect(self, run: AgentRun) -> list[Flag]:
        """One flag listing every failed tool call."""
        failed = [call for call in run.tool_calls if not call.succeeded]
        if not failed:
            return []
        return [
            Flag(
                self.id,
                Severity.WARNING,
                run.trace_id,
                f"{len(failed)} tool call(s) failed: "
                + ", ".join(f"{c.name} ({c.error})" for c in failed),
                tuple(c.span_id for c in failed),
            )
        ]


@dataclass(frozen=True)
class IncompleteTraceDetector:
    """The trace is missing structure scorers rely on (root, tool spans, token usage)."""

    id: str = "incomplete_trace@1"

    def detect(self, run: AgentRun) -> list[Flag]:
        """One flag with the completeness reasons."""
        if run.complete:
            return []
        return [
            Flag(
                self.id,
                Severity.WARNING,
                run.trace_id,
                "incomplete trace: " + "; ".join(run.completeness_reasons),
                evidence={"reasons": list(run.completeness_reasons)},
            )
        ]


@dataclass(frozen=True)
class LongTrajectoryDetector:
    """More tool calls than a healthy run of this agent makes (a loop or a lost agent)."""

    max_tool_calls: int = 12
    id: str = "long_trajectory@1"

    def detect(self, run: AgentRun) -> list[Flag]:
        """One flag when the run made more than ``max_tool_calls`` tool calls."""
        if len(run.tool_calls) <= self.max_tool_calls:
            return []
        return [
            Flag(
                self.id,
                Severity.WARNING,
                run.trace_id,
                f"{len(run.tool_calls)} tool calls (more than {self.max_tool_calls})",
                evidence={"tool_calls": list(run.tool_names)},
            )
        ]


@dataclass(frozen=True)
class RepeatedCallDetector:
    """The same tool with the same arguments called again and again (an agent loop)."""

    max_repeats: int = 3
    id: str = "repeated_call@1"

    def detect(self, run: AgentRun) -> list[Flag]:
        """One flag per call repeated more than ``max_repeats`` times."""
        counts = Counter(
            (call.name, json.dumps(call.arguments, sort_keys=True, default=str))
            for call in run.tool_calls
        )
        return [
            Flag(
                self.id,
                Severity.WARNING,
                run.trace_id,
                f"{name} called {count} times with the same arguments",
                tuple(c.span_id for c in run.tool_calls if c.name == name),
                {"tool": name, "arguments": arguments, "count": count},
            )
            for (name, arguments), count in counts.items()
            if count > self.max_repeats
        ]


@dataclass(frozen=True)
class ErrorStatusDetector:
    """The run failed (root in error, or the runner's failure record), or a model call did.

    Tool errors are left to ``ToolErrorDetector``; a failed root is critical, a failed model
    call (a 404 from the provider, a timeout) a warning.
    """

    id: str = "error_status@1"

    def detect(self, run: AgentRun) -> list[Flag]:
        """A critical flag for a failed run, else a warning for failed non-tool spans."""
        root = run.span(run.root_span_id) if run.root_span_id else None
        if run.error is not None or (root is not None and root.is_error):
            message = run.error or (root.status_message if root else None) or "error status"
            return [
                Flag(
                    self.id,
                    Severity.CRITICAL,
                    run.trace_id,
                    f"run failed: {message}",
                    (root.span_id,) if root else (),
                )
            ]
        failed = [
            span for span in run.spans if span.is_error and span.operation != Operation.EXECUTE_TOOL
        ]
        if not failed:
            return []
        return [
            Flag(
                self.id,
                Severity.WARNING,
                run.trace_id,
                f"{len(failed)} span(s) in error: "
                + ", ".join(
                    f"{s.name} ({s.status_message or s.attributes.get('error.type')})"
                    for s in failed
                ),
                tuple(s.span_id for s in failed),
            )
        ]
