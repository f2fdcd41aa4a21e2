"""``tool_call_f1``: F1 of executed calls against expected calls (name and arguments)."""

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.matching import align, tool_schemas, trajectories
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class ToolCallF1(ScorerBase):
    """F1 between the run's calls and the expected calls, against the best trajectory.

    Range [0, 1], higher is better. A call is a true positive when it satisfies an expected
    step (same name, arguments accepted by ``scoring.arguments``; one call per step).
    Precision = true positives / executed calls, recall = matched required steps / required
    steps; a matched optional step counts as a true positive for precision only. F1 = 0 when
    nothing matches. Not applicable when the item has no expected tool calls.

    Reads: run ``tool_calls``; item ``expected_tool_calls``, ``alternative_trajectories``,
    ``tool_schemas``.
    """

    metric_id = "tool_call_f1"
    layer = Layer.TOOL_USE
    not_applicable_when = "the item lists no expected tool call"
    run_fields = frozenset({"tool_calls"})
    item_fields = frozenset({"expected_tool_calls", "alternative_trajectories", "tool_schemas"})

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        schemas = tool_schemas(item)
        best: tuple[float, dict[str, object]] | None = None
        for index, steps in enumerate(trajectories(item)):
            alignment = align(run.tool_calls, steps, schemas, trajectory_index=index)
            if alignment.required == 0:
                continue
            tp = len(alignment.pairs)
            precision = tp / len(run.tool_calls) if run.tool_calls else 0.0
            recall = alignment.matched_required / alignment.required
            f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
            evidence: dict[str, object] = {
                "trajectory": index,
                "precision": precision,
                "recall": recall,
                "missing": [steps[i].name for i in alignment.missing],
                "extra_span_ids": [run.tool_calls[i].span_id for i in alignment.extra],
            }
            if best is None or f1 > best[0]:
                best = (f1, evidence)
        if best is None:
            return self.not_applicable("the item lists no expected tool call to compare with")
        f1, evidence = best
        return self.scored(
            f1,
            reason=f"precision {evidence['precision']:.2f}, recall {evidence['recall']:.2f}",
            span_ids=[c.span_id for c in run.tool_calls],
            evidence=evidence,
        )
