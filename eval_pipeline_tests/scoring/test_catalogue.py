"""The metric catalogue is read off the scorer classes (issue 31).

Contract: every registered metric has a card built from its class alone: a layer, a one-line
description, its version, direction and range, the run and item fields it reads and the span
kinds derived from them, whether it is judged. A scorer whose code can answer
``not_applicable`` says when (``not_applicable_when``), and one whose values are only 0 and 1
says so (``value_set``) and never scores anything else. A class that declares its identity only
on instances cannot be catalogued (the error names the member).
"""

import inspect

import pytest

from eval_pipeline.scoring.catalogue import ScorerClassError, card_of
from eval_pipeline.scoring.protocol import Direction, Layer
from eval_pipeline.scoring.registry import (
    build_scorer,
    metric_card,
    registered_metric_ids,
    score_run,
    scorer_class,
)
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline_tests.scoring.scoring_corpus import (
    agentdojo_pairs,
    bench_pairs,
    real_trace_pairs,
)


@pytest.mark.parametrize("metric_id", sorted(registered_metric_ids()))
def test_every_metric_has_a_card_read_off_its_class(metric_id: str) -> None:
    card, cls = metric_card(metric_id), scorer_class(metric_id)
    assert card.id == metric_id and card.version == cls.metric_version >= 1
    assert card.layer in Layer.ALL and card.description
    assert card.direction in (Direction.HIGHER_IS_BETTER, Direction.LOWER_IS_BETTER)
    assert set(card.run_fields) == set(cls.run_fields)
    assert set(card.item_fields) == set(cls.item_fields)
    assert card.judged is cls.needs_judge
    assert card.span_kinds or not card.run_fields
    # A scorer whose code can answer not_applicable says when (a judged one through its
    # hooks: a reason before judging, a reference its item lacks by design).
    source = inspect.getsource(cls)
    hooks = ("self.not_applicable(", "def not_applicable_reason", "def absent_reference")
    answers_na = any(hook in source for hook in hooks)
    assert bool(card.not_applicable_when) is answers_na, card.not_applicable_when


def test_span_kinds_are_derived_from_the_run_fields() -> None:
    assert metric_card("tool_correctness").span_kinds == ("execute_tool",)
    assert "retrieval" in metric_card("faithfulness").span_kinds
    assert metric_card("handoff_quality").layer == Layer.MULTI_AGENT


def test_a_binary_metric_scores_only_its_declared_values() -> None:
    binary = [
        m for m in sorted(registered_metric_ids()) if metric_card(m).value_set and not
        metric_card(m).judged
    ]  # fmt: skip
    assert {"task_success", "injection_resistance", "trace_completeness"} <= set(binary)
    scorers = [build_scorer(m) for m in binary]
    values = {
        (row.metric_id, row.value)
        for run, item in [*bench_pairs(60), *agentdojo_pairs(), *real_trace_pairs()]
        for row in score_run(run, item, scorers)
        if row.status == ScoreStatus.SCORED
    }
    assert values, "the corpus scores none of the binary metrics"
    for metric_id, value in values:
        assert value in metric_card(metric_id).value_set, (metric_id, value)


class _Declared:
    """A protocol-only scorer that declares its identity as class attributes."""

    id = "declared31"
    version = 3
    direction = Direction.LOWER_IS_BETTER
    requires_run = frozenset({"tool_calls"})
    requires_item = frozenset()
    needs_judge = False
    layer = Layer.SAFETY


def test_a_protocol_class_with_class_attributes_has_a_card() -> None:
    card = card_of(_Declared, source="python x:_Declared", scorer_id="x:_Declared")
    assert (card.id, card.version, card.layer, card.run_fields) == (
        "declared31",
        3,
        Layer.SAFETY,
        ("tool_calls",),
    )
    assert card.to_json()["higher_is_better"] is False
    assert card.to_json()["scorer_id"] == "x:_Declared"


def test_a_class_that_declares_identity_only_on_instances_is_refused() -> None:
    class OnInstances(_Declared):
        """The version only on instances."""

        @property  # type: ignore[misc]
        def version(self) -> int:
            return 1

    with pytest.raises(ScorerClassError, match=r"OnInstances\.version must be a class attribute"):
        card_of(OnInstances)
    with pytest.raises(ScorerClassError, match="layer 'gut_feeling'"):
        card_of(type("Odd", (_Declared,), {"layer": "gut_feeling"}))
