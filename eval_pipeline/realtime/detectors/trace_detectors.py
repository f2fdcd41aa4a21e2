"""The trace-scope detectors: signals only a completed run shows, no judge.

Incomplete structure, loops and overlong trajectories, an action claimed in the final answer
that no span performed, and the run's latency and cost budgets. Each is linear in the run's
spans; the real-time plane runs them once the root ended and a quiet period passed.
"""

import json
from collections import Counter
from dataclasses import dataclass

from eval_pipeline.realtime.detectors.flag import MAX_SCAN_CHARS, Flag, Severity, TraceDetector
from eval_pipeline.scoring.action_claims import find_claims, performs
from eval_pipeline.suites.prices import PriceTable, known_cost_of_run
from eval_pipeline.traces.model import AgentRun


def _place(run: AgentRun) -> tuple[str, ...]:
    return (run.root_span_id,) if run.root_span_id else ()


@dataclass(frozen=True)
class IncompleteTraceDetector(TraceDetector):
    """The run is missing structure scorers rely on (root, tool spans, token usage)."""

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
                _place(run),
                {"reasons": list(run.completeness_reasons)},
            )
        ]


@dataclass(frozen=True)
class LongTrajectoryDetector(TraceDetector):
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
                _place(run),
                {"tool_calls": list(run.tool_names)},
            )
        ]


@dataclass(frozen=True)
class RepeatedCallDetector(TraceDetector):
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
                tuple(
                    c.span_id
                    for c in run.tool_calls
                    if c.name == name
                    and json.dumps(c.arguments, sort_keys=True, default=str) == arguments
                ),
                {"tool": name, "arguments": arguments, "count": count},
            )
            for (name, arguments), count in counts.items()
            if count > self.max_repeats
        ]


@dataclass(frozen=True)
class ClaimedActionDetector(TraceDetector):
    """The final answer claims an action ("I have refunded ...") no successful call performed.

    The claim finder and the tool matcher are the ``hallucinated_actions`` scorer's
    (``scoring.action_claims``), so the live flag and the offline score agree.
    """

    id: str = "claimed_action@1"

    def detect(self, run: AgentRun) -> list[Flag]:
        """One critical flag listing every unsupported claim, on the final-answer span."""
        if not run.final_answer:
            return []
        succeeded = [call for call in run.tool_calls if call.succeeded]
        unsupported = [
            claim
            for claim in find_claims(run.final_answer[:MAX_SCAN_CHARS])
            if not any(performs(call.name, claim.tool_patterns) for call in succeeded)
        ]
        if not unsupported:
            return []
        first = unsupported[0]
        place = (run.final_answer_span_id,) if run.final_answer_span_id else _place(run)
        return [
            Flag(
                self.id,
                Severity.CRITICAL,
                run.trace_id,
                f"answer claims '{first.word}' but no successful call matches "
                f"{list(first.tool_patterns)}: {first.sentence[:160]}",
                place,
                {"claims": [{"verb": c.verb, "sentence": c.sentence} for c in unsupported]},
            )
        ]


@dataclass(frozen=True)
class RunLatencyDetector(TraceDetector):
    """The run took longer than its latency budget."""

    max_run_s: float = 120.0
    id: str = "run_latency@1"

    def detect(self, run: AgentRun) -> list[Flag]:
        """A warning when the run's wall time is over ``max_run_s``."""
        if run.duration_s <= self.max_run_s:
            return []
        return [
            Flag(
                self.id,
                Severity.WARNING,
                run.trace_id,
                f"run took {run.duration_s:.1f} s (budget {self.max_run_s} s)",
                _place(run),
                {"duration_s": run.duration_s},
            )
        ]


@dataclass(frozen=True)
class RunCostDetector(TraceDetector):
    """The run cost more than its budget: tokens x the versioned price table.

    Never a cost the agent reports about itself. A cost that cannot be known (a model missing
    from the table, token counts missing) raises no flag: unknown is not over budget, and
    ``incomplete_trace`` reports missing usage.
    """

    max_cost_usd: float
    prices: PriceTable
    id: str = "run_cost@1"

    def detect(self, run: AgentRun) -> list[Flag]:
        """A warning when the run's priced cost is over ``max_cost_usd``."""
        cost = known_cost_of_run(run, self.prices)
        if cost is None or cost <= self.max_cost_usd:
            return []
        return [
            Flag(
                self.id,
                Severity.WARNING,
                run.trace_id,
                f"run cost ${cost:.4f} (budget ${self.max_cost_usd}, prices {self.prices.version})",
                _place(run),
                {"cost_usd": cost, "price_table": self.prices.version},
            )
        ]
