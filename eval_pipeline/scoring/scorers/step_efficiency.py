"""``step_efficiency``: how close the run's number of tool calls is to an acceptable path."""

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.matching import NO_SCHEMAS, align, trajectories
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class StepEfficiency(ScorerBase):
    """Length of the shortest acceptable path over the number of calls the run executed.

    Range [0, 1], higher is better: ``min(1, allowed / executed)``, where ``allowed`` is the
    least, over the acceptable trajectories, of a trajectory's required steps plus the optional
    steps of it the run took (matched by tool name). Extra calls lower it; optional calls the
    run took do not (version 1 counted them as waste, so an all-optional trajectory scored 0
    whatever the run did). A run that does the job in fewer calls than the reference scores 1,
    and so does a run that makes no call where the trajectory requires none. Efficiency says
    nothing about correctness; read it next to ``trajectory_match``. Not applicable when the
    item has no expected tool calls; unscored when the run executed no tool call but some is
    required.

    Reads: run ``tool_calls``; item ``expected_tool_calls``, ``alternative_trajectories``.
    """

    metric_id = "step_efficiency"
    layer = Layer.TOOL_USE
    not_applicable_when = "the item lists no expected tool call"
    metric_version = 2
    run_fields = frozenset({"tool_calls"})
    item_fields = frozenset({"expected_tool_calls", "alternative_trajectories"})

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        options = trajectories(item)
        if not options:
            return self.not_applicable("the item lists no expected tool call to compare with")
        executed = len(run.tool_calls)
        shortest = min(sum(1 for step in steps if not step.optional) for steps in options)
        if executed == 0:
            if shortest:
                return self.unscored("run executed no tool call")
            return self.scored(
                1.0,
                reason="no call executed, none required",
                evidence={"executed": 0, "allowed": 0, "shortest": 0},
            )
        allowed = min(_allowed(run, steps, n) for n, steps in enumerate(options))
        value = min(1.0, allowed / executed)
        return self.scored(
            value,
            reason=f"{executed} call(s) executed, an acceptable trajectory allows {allowed}"
            f" (shortest {shortest})",
            span_ids=[c.span_id for c in run.tool_calls],
            evidence={"executed": executed, "allowed": allowed, "shortest": shortest},
        )


def _allowed(run: AgentRun, steps: tuple[ExpectedToolCall, ...], index: int) -> int:
    """Required steps of ``steps`` plus the optional ones the run took."""
    alignment = align(
        run.tool_calls, steps, NO_SCHEMAS, with_arguments=False, trajectory_index=index
    )
    taken = sum(1 for step_index, _ in alignment.pairs if steps[step_index].optional)
    return alignment.required + taken
