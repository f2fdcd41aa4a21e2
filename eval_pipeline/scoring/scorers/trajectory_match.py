"""``trajectory_match``: does the run's tool trajectory match an acceptable one?"""

from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.constraints import check_ordering, forbidden_executed
from eval_pipeline.scoring.matching import align, tool_schemas, trajectories
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class TrajectoryMatch(ScorerBase):
    """Set-based trajectory agreement with exact order only where the item constrains it.

    Range [0, 1], higher is better. For each acceptable trajectory: calls are matched to steps
    (name and arguments, ``scoring.matching``); agreement is the Jaccard index
    matched / (required steps + matched optional steps + unmatched calls), so skipped optional
    steps cost nothing and extra calls cost as much as missing ones. It is multiplied by the
    share of applicable ordering constraints that hold (``before`` executed before every
    ``after``). The best trajectory wins. Any executed forbidden call makes the value 0.
    Not applicable when the item has no expected tool calls (nothing to compare with).

    Reads: run ``tool_calls``; item ``expected_tool_calls``, ``alternative_trajectories``,
    ``ordering``, ``forbidden_calls``, ``tool_schemas``.
    """

    metric_id = "trajectory_match"
    layer = Layer.TOOL_USE
    not_applicable_when = "the item lists no expected tool call"
    run_fields = frozenset({"tool_calls"})
    item_fields = frozenset(
        {
            "expected_tool_calls",
            "alternative_trajectories",
            "ordering",
            "forbidden_calls",
            "tool_schemas",
        }
    )

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        options = trajectories(item)
        if not options:
            return self.not_applicable("the item lists no expected tool call to compare with")
        schemas = tool_schemas(item)
        calls = run.tool_calls
        ordering = [r for r in check_ordering(calls, item.ordering) if r.applicable]
        order_share = (sum(r.satisfied for r in ordering) / len(ordering)) if ordering else 1.0
        violations = [
            {"before": r.constraint.before, "after": r.constraint.after, "span_id": r.span_id}
            for r in ordering
            if not r.satisfied
        ]
        hits = forbidden_executed(calls, item.forbidden_calls)
        best: tuple[float, dict[str, Any]] | None = None
        for index, steps in enumerate(options):
            alignment = align(calls, steps, schemas, trajectory_index=index)
            matched = len(alignment.pairs)
            optional_taken = matched - alignment.matched_required
            denominator = alignment.required + optional_taken + len(alignment.extra)
            jaccard = matched / denominator if denominator else 1.0
            evidence: dict[str, Any] = {
                "trajectory": index,
                "jaccard": jaccard,
                "missing": [steps[i].name for i in alignment.missing],
                "extra": [
                    {"tool": calls[i].name, "span_id": calls[i].span_id} for i in alignment.extra
                ],
            }
            if best is None or jaccard > best[0]:
                best = (jaccard, evidence)
        assert best is not None
        jaccard, evidence = best
        extra: list[dict[str, str]] = evidence["extra"]
        evidence["ordering_violations"] = violations
        evidence["forbidden"] = [{"tool": c.name, "span_id": c.span_id} for c, _ in hits]
        if hits:
            return self.scored(
                0.0,
                reason=f"forbidden call executed: {hits[0][0].name}",
                span_ids=[c.span_id for c, _ in hits],
                evidence=evidence,
            )
        value = jaccard * order_share
        parts = [f"set agreement {jaccard:.2f}"]
        if violations:
            parts.append(
                f"order violated: {violations[0]['before']} before {violations[0]['after']}"
            )
        if evidence["missing"]:
            parts.append(f"missing {evidence['missing']}")
        spans = [v["span_id"] for v in violations if v["span_id"]]
        spans += [str(e["span_id"]) for e in extra]
        return self.scored(
            value,
            reason="; ".join(parts),
            span_ids=spans or [c.span_id for c in calls],
            evidence=evidence,
        )
