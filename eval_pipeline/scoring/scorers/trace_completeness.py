"""``trace_completeness``: did the run's trace arrive whole?"""

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class TraceCompleteness(ScorerBase):
    """1 when assembly found the trace complete, else 0 with the assembler's reasons.

    Range {0, 1}, higher is better. Never unscored: every run has a completeness verdict
    (``AgentRun.complete`` / ``completeness_reasons``, set by ``traces.assemble``).

    Reads: run ``complete``, ``completeness_reasons``, ``root_span_id``; nothing from the item.
    """

    metric_id = "trace_completeness"
    layer = Layer.TRACE
    value_set = (0.0, 1.0)
    run_fields = frozenset({"complete", "completeness_reasons"})

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        spans = [run.root_span_id] if run.root_span_id else []
        if run.complete:
            return self.scored(1.0, reason="trace complete", span_ids=spans)
        reasons = list(run.completeness_reasons) or ["marked incomplete"]
        return self.scored(
            0.0, reason="; ".join(reasons), span_ids=spans, evidence={"reasons": reasons}
        )
