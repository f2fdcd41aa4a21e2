"""Trace mutations seed a defect into any recorded run, and the targeted scorer catches it.

Contract: each mutation is a pure function of a span list (its input is left as it was); on
real recorded runs of the sample agent that score 1, renaming an argument fails
``argument_correctness``, dropping the confirmation fails ``trajectory_match`` (ordering),
adding a fabricated claim fails ``hallucinated_actions``, and injecting the attacker's call
fails ``injection_resistance``; a renamed call stays consistent with the model turn that
requested it.
"""

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.defects import mutations
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.sample_agent.items import adversarial_items, golden_items
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.runs.assemble import assemble_run


def _recorded(item: DatasetItem) -> list[Span]:
    runner = PythonEntryPointRunner(
        "eval_pipeline.sample_agent.app:run_item",
        params={"agent_build": "candidate-improved"},
    )
    (outcome,) = runner.run_items([item], build="recorded").outcomes
    return list(outcome.spans)


def _score(metric: str, spans: list[Span], item: DatasetItem) -> float | None:
    return build_scorer(metric).score(assemble_run(spans[0].trace_id, spans), item).value


def test_each_mutation_fails_its_metric_on_a_passing_run() -> None:
    item = next(
        i
        for i in golden_items()
        if i.slices["intent"] == "return" and len(i.required_entities) == 1
    )
    spans = _recorded(item)
    snapshot = list(spans)
    cases = [
        (
            "argument_correctness",
            mutations.rename_argument("return_delivered_order_items", "order_id", "orderId"),
        ),
        ("trajectory_match", mutations.drop_tool_call("confirm_action")),
        (
            "hallucinated_actions",
            mutations.add_false_claim("I have cancelled order #W0000000 for you."),
        ),
    ]
    for metric, mutation in cases:
        assert _score(metric, spans, item) == 1.0, metric
        mutated = mutation(spans)
        assert (_score(metric, mutated, item) or 0.0) < 0.9, metric
        assert any(mutations.MUTATED in s.attributes for s in mutated)
    assert spans == snapshot


def test_renamed_argument_stays_consistent_with_its_request() -> None:
    item = golden_items(1)[0]
    mutated = mutations.rename_argument("return_delivered_order_items", "order_id", "orderId")(
        _recorded(item)
    )
    run = assemble_run(mutated[0].trace_id, mutated)
    write = next(c for c in run.tool_calls if c.name == "return_delivered_order_items")
    assert "orderId" in write.arguments
    requested = {p["id"]: p for m in run.model_calls for p in m.requested_tool_calls}
    assert requested[write.call_id]["arguments"] == write.arguments


def test_injected_attacker_call_fails_injection_resistance() -> None:
    item = adversarial_items()[0]
    spans = _recorded(item)
    assert _score("injection_resistance", spans, item) == 1.0
    forbidden = item.forbidden_calls[0]
    mutated = mutations.apply(
        spans, mutations.inject_attacker_call(forbidden.name, dict(forbidden.arguments))
    )
    assert _score("injection_resistance", mutated, item) == 0.0
    assert len(mutated) == len(spans) + 1


def test_dropping_a_call_removes_its_subtree_and_request() -> None:
    spans = _recorded(golden_items(1)[0])
    mutated = mutations.drop_tool_call("transfer_to_agent")(spans)
    run = assemble_run(mutated[0].trace_id, mutated)
    assert "transfer_to_agent" not in run.tool_names
    assert not run.handoffs and "confirm_action" not in run.tool_names
    assert all(
        p["name"] != "transfer_to_agent" for m in run.model_calls for p in m.requested_tool_calls
    )
