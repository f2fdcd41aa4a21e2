"""``tool_correctness``: did the agent call the tools the task needs?"""

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.matching import NO_SCHEMAS, Alignment, align, trajectories
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class ToolCorrectness(ScorerBase):
    """Share of the expected tools the run called, against the best acceptable trajectory.

    Range [0, 1], higher is better. Names only (arguments are ``argument_correctness``'s job),
    counted as multisets: an expected step needs its own call. Optional steps neither help nor
    hurt. Extra calls are listed in the evidence but not penalised here (``tool_call_f1``
    penalises them). Not applicable when the item has no expected tool calls (no reference
    trajectory with a required step: a reference-less regression case, say).

    Reads: run ``tool_calls``; item ``expected_tool_calls``, ``alternative_trajectories``.
    """

    metric_id = "tool_correctness"
    layer = Layer.TOOL_USE
    not_applicable_when = "the item lists no expected tool call"
    run_fields = frozenset({"tool_calls"})
    item_fields = frozenset({"expected_tool_calls", "alternative_trajectories"})

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        best: tuple[float, Alignment] | None = None
        for index, steps in enumerate(trajectories(item)):
            alignment = align(
                run.tool_calls, steps, NO_SCHEMAS, with_arguments=False, trajectory_index=index
            )
            if alignment.required == 0:
                continue
            value = alignment.matched_required / alignment.required
            if best is None or value > best[0]:
                best = (value, alignment)
        if best is None:
            return self.not_applicable("the item lists no expected tool call to compare with")
        value, alignment = best
        missing = [alignment.steps[i].name for i in alignment.missing]
        extra = [run.tool_calls[i].name for i in alignment.extra]
        reason = "all expected tools called" if not missing else f"missing tools: {missing}"
        return self.scored(
            value,
            reason=reason,
            span_ids=[c.span_id for c in run.tool_calls],
            evidence={
                "trajectory": alignment.trajectory_index,
                "missing_tools": missing,
                "unexpected_tools": extra,
            },
        )
