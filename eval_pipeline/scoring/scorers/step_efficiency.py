"""``step_efficiency``: how close the run's number of tool calls is to the shortest path."""

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.matching import trajectories
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.model import AgentRun


class StepEfficiency(ScorerBase):
    """Shortest acceptable trajectory length over the number of calls the run executed.

    Range [0, 1], higher is better: ``min(1, shortest / executed)``, where ``shortest`` counts
    the required steps of the shortest acceptable trajectory (optional steps excluded). A run
    that does the job in fewer calls than the reference scores 1. Efficiency says nothing about
    correctness; read it next to ``trajectory_match``. Not applicable when the item has no
    expected tool calls; unscored when the run executed no tool call (there is nothing to be
    efficient about).

    Reads: run ``tool_calls``; item ``expected_tool_calls``, ``alternative_trajectories``.
    """

    metric_id = "step_efficiency"
    run_fields = frozenset({"tool_calls"})
    item_fields = frozenset({"expected_tool_calls", "alternative_trajectories"})

    def score(self, run: AgentRun, item: DatasetItem) -> Score:
        """Score one run (see the class docstring)."""
        options = trajectories(item)
        if not options:
            return self.not_applicable(run, "the item lists no expected tool call to compare with")
        executed = len(run.tool_calls)
        if executed == 0:
            return self.unscored(run, "run executed no tool call")
        shortest = min(sum(1 for step in steps if not step.optional) for steps in options)
        value = min(1.0, shortest / executed)
        return self.scored(
            run,
            value,
            reason=f"{executed} call(s) executed, shortest acceptable is {shortest}",
            span_ids=[c.span_id for c in run.tool_calls],
            evidence={"executed": executed, "shortest": shortest},
        )
