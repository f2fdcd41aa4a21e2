"""A judged metric defined by its rubric: a ``JudgedScorer`` class made from a custom ``Rubric``.

``rubric_scorer_class(metric_id, rubric)`` makes the scorer class of a suite's rubric metric
(``judges.custom_rubrics`` reads the file). It is judged exactly as the built-in judged metrics
are (``JudgedScorer``: one batch of requests to the suite's judge through its cache, the verdict
concluded on the rubric's scale and threshold), and its catalogue card comes from the class like
theirs: version = the rubric's version, reads = what its fields are built from, layer = the
layer of the most specific field it reads.

Each rubric field is built from the run and its item by ``FIELD_SOURCES``; a required field the
run cannot give (no final answer, no plan) makes the run ``unscored``, one the item does not give
(no reference answer) makes the metric ``not_applicable`` to it: the item carries no reference
to judge against, as with a built-in metric whose item lists no expected call.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.custom_rubrics import FIELDS
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.judges.rubrics import Rubric
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.run_text import evidence_of, plan_of, question_of, tool_calls_of
from eval_pipeline.scoring.scorers.judged import JudgedScorer
from eval_pipeline.traces.model import AgentRun


@dataclass(frozen=True)
class FieldSource:
    """How one rubric field is built, what it reads, and why it can be missing."""

    build: Callable[[AgentRun, DatasetItem], Any]
    run_fields: frozenset[str]
    item_fields: frozenset[str]
    missing: str
    layer: str


def _plan(run: AgentRun, item: DatasetItem) -> str | None:
    plan = plan_of(run)
    return plan[0] if plan else None


FIELD_SOURCES: dict[str, FieldSource] = {
    "question": FieldSource(
        question_of,
        frozenset({"user_input"}),
        frozenset({"input_messages"}),
        "no user question in the run or the item",
        Layer.TASK,
    ),
    "answer": FieldSource(
        lambda run, item: (run.final_answer or "").strip(),
        frozenset({"final_answer"}),
        frozenset(),
        "run has no final answer",
        Layer.FINAL_ANSWER,
    ),
    "contexts": FieldSource(
        lambda run, item: evidence_of(run),
        frozenset({"retrieved", "tool_calls"}),
        frozenset(),
        "run has no retrieved context or tool result",
        Layer.RETRIEVAL,
    ),
    "tool_calls": FieldSource(
        lambda run, item: tool_calls_of(run),
        frozenset({"tool_calls"}),
        frozenset(),
        "run made no tool call",
        Layer.TOOL_USE,
    ),
    "expected_outcome": FieldSource(
        lambda run, item: item.reference_answer,
        frozenset(),
        frozenset({"reference_answer"}),
        "the item has no reference answer",
        Layer.TASK,
    ),
    "plan": FieldSource(
        _plan,
        frozenset({"spans", "model_calls"}),
        frozenset(),
        "run shows no plan (no plan span, no text before the first tool request)",
        Layer.PLAN,
    ),
}
"""Rubric field -> how it is built (every name of ``judges.custom_rubrics.FIELDS``)."""

_SPECIFIC = (Layer.PLAN, Layer.RETRIEVAL, Layer.TOOL_USE, Layer.FINAL_ANSWER, Layer.TASK)
"""Layers from most to least specific: a rubric reading a plan judges the plan layer."""

if set(FIELD_SOURCES) != set(FIELDS):  # pragma: no cover - a programming error, caught on import
    raise RuntimeError("rubric fields and their sources disagree")


class RubricScorer(JudgedScorer):
    """Base of the scorers made from a custom rubric (``rubric_scorer_class``)."""

    rubric_definition: ClassVar[Rubric]

    def __init__(self, judge: Judge) -> None:
        super().__init__(judge)

    def rubric(self) -> Rubric:
        """The custom rubric itself (it carries its own version)."""
        return self.rubric_definition

    def not_applicable_reason(self, run: AgentRun, item: DatasetItem) -> str | None:
        """The reference a required field needs that the item does not give, if any."""
        for name in self.rubric_definition.required_fields:
            source = FIELD_SOURCES[name]
            if source.item_fields and not source.run_fields and not source.build(run, item):
                return source.missing
        return None

    def fields(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Every field the rubric names; a missing required one says why (unscored)."""
        rubric = self.rubric_definition
        found: dict[str, Any] = {}
        for name in (*rubric.required_fields, *rubric.optional_fields):
            value = FIELD_SOURCES[name].build(run, item)
            if value:
                found[name] = value
            elif name in rubric.required_fields:
                return FIELD_SOURCES[name].missing
        return found


def rubric_scorer_class(metric_id: str, rubric: Rubric) -> type[RubricScorer]:
    """The scorer class of rubric metric ``metric_id`` (see the module docstring)."""
    names = (*rubric.required_fields, *rubric.optional_fields)
    layers = {FIELD_SOURCES[name].layer for name in names}
    required = [FIELD_SOURCES[n] for n in rubric.required_fields]
    absent = [s.missing for s in required if s.item_fields and not s.run_fields]
    namespace = {
        "__doc__": f"{rubric.description}\n\nRubric {rubric.ref} ({rubric.source}).",
        "__module__": __name__,
        "metric_id": metric_id,
        "metric_version": int(rubric.version),
        "task": rubric.task,
        "layer": next((layer for layer in _SPECIFIC if layer in layers), Layer.TASK),
        "run_fields": frozenset().union(*(FIELD_SOURCES[n].run_fields for n in names)),
        "item_fields": frozenset().union(*(FIELD_SOURCES[n].item_fields for n in names)),
        "not_applicable_when": "; ".join(absent),
        "rubric_definition": rubric,
    }
    return type(f"RubricScorer[{metric_id}]", (RubricScorer,), namespace)
