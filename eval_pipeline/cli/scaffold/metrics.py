"""Your own metric: a deterministic check written in Python, declared in ``suite.yaml``.

The suite names it by entry point (``scorer: "metrics:MentionsCity"``); ``score`` imports this
file from the suite's folder and scores every run with it beside the built-in metrics. A scorer
subclasses ``ScorerBase``, sets its id (the metric id in the suite), version (bump it when the
check changes: a baseline scored by another version is not compared) and the fields it reads,
and writes ``verdict``: ``scored`` with a value in [0, 1], ``unscored`` when the run lacks what
it needs (never a 0), ``not_applicable`` when the metric does not apply to the item.
``eval-pipeline metrics show mentions_city --suite suite.yaml`` prints its card.
"""

from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class MentionsCity(ScorerBase):
    """The final answer names the city the item's expected tool call asks about (1 or 0)."""

    metric_id = "mentions_city"
    metric_version = 1
    layer = Layer.FINAL_ANSWER
    run_fields = frozenset({"final_answer"})
    item_fields = frozenset({"expected_tool_calls"})
    not_applicable_when = "the item expects no call with the argument"
    value_set = (0.0, 1.0)

    def __init__(self, argument: str = "city") -> None:
        self.argument = argument

    @property
    def arguments(self) -> dict[str, Any]:
        """The construction arguments, recorded on every row (``args`` in the suite)."""
        return {"argument": self.argument}

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """1 when the answer contains one of the expected values, case-folded; else 0."""
        expected = [
            str(value)
            for call in item.expected_tool_calls
            for value in call.arguments.get(self.argument, [])
            if str(value)
        ]
        if not expected:
            return self.not_applicable(f"no expected call passes {self.argument!r}")
        if not run.final_answer:
            return self.unscored("the run has no final answer")
        answer = run.final_answer.casefold()
        named = [value for value in expected if value.casefold() in answer]
        if named:
            return self.scored(1.0, reason=f"names {named[0]}")
        return self.scored(0.0, reason=f"names none of {', '.join(expected)}")
