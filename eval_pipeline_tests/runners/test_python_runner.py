"""The Python entry-point runner captures spans through the real OpenTelemetry SDK.

Contract: ``function(item, context)`` runs once per (item, run index); every span it creates
with the tracer it is given, or with the global tracer, reaches that run and no other (runs go
in parallel); spans arrive normalised (GenAI fields lifted) with the runner's eval context on
the root; seeds are stable per (build, item, run) and differ with another seed base.
"""

import pytest

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.runners.python_entry import PythonEntryPointRunner, load_entry_point
from eval_pipeline.runners.sink import MemorySink
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext, Operation

AGENTS = "eval_pipeline_tests.runners.fault_agents"


def _items(n: int) -> list[DatasetItem]:
    return [DatasetItem(item_id=f"item-{i}") for i in range(n)]


def test_spans_are_captured_per_run_under_concurrency() -> None:
    runner = PythonEntryPointRunner(f"{AGENTS}:good")
    result = runner.run_items(
        _items(6),
        build="b1",
        runs_per_item=3,
        concurrency=4,
        base_context=EvalContext(suite="s", suite_version="1"),
    )
    assert result.summary() == {"completed": 18, "failed": 0, "skipped": 0}
    for outcome in result.outcomes:
        assert len(outcome.spans) == 3
        assert {s.trace_id for s in outcome.spans} == {outcome.trace_id}
        tool = next(s for s in outcome.spans if s.operation == Operation.EXECUTE_TOOL)
        assert tool.tool_name == "lookup"
        assert tool.tool_arguments == {"q": outcome.item_id}
        assert tool.tool_call_id == f"call-{outcome.item_id}-{outcome.run_index}"
        root = next(s for s in outcome.spans if s.parent_span_id is None)
        context = eval_context.from_attributes(root.attributes)
        assert (context.build_id, context.item_id, context.run_index, context.suite) == (
            "b1",
            outcome.item_id,
            outcome.run_index,
            "s",
        )
    assert len({o.trace_id for o in result.outcomes}) == 18


def test_spans_from_the_global_tracer_are_captured_and_context_is_stamped() -> None:
    runner = PythonEntryPointRunner(f"{AGENTS}:global_tracer_agent")
    result = runner.run_items(_items(2), build="b2", runs_per_item=2, concurrency=2)
    assert len(result.completed) == 4
    for outcome in result.outcomes:
        names = sorted(s.name for s in outcome.spans)
        assert names == ["execute_tool t", "invoke_agent lib"]
        root = next(s for s in outcome.spans if s.parent_span_id is None)
        # The agent did not set the eval context; the runner put it on the root.
        assert root.attributes[eval_context.ITEM_ID] == outcome.item_id
        assert root.attributes[eval_context.RUN_INDEX] == outcome.run_index
        assert root.attributes[eval_context.BUILD_ID] == "b2"


def test_spans_are_written_to_the_sink_as_runs_end() -> None:
    sink = MemorySink()
    runner = PythonEntryPointRunner(f"{AGENTS}:good", sink=sink)
    runner.run_items(_items(3), build="b3", runs_per_item=2)
    assert sink.stored_runs("b3") == {(f"item-{i}", r) for i in range(3) for r in range(2)}
    assert sink.stored_runs("other") == set()


def test_seeds_are_stable_and_a_new_seed_base_changes_them() -> None:
    seen: dict[str, list[int]] = {}

    def record(item: DatasetItem, context: object) -> None:
        seen.setdefault(context.build, []).append(context.seed)  # type: ignore[attr-defined]

    for build, base in (("x", None), ("y", "x"), ("z", "x-aa")):
        PythonEntryPointRunner(record).run_items(
            _items(3), build=build, runs_per_item=2, concurrency=1, seed_base=base
        )
    assert seen["x"] == seen["y"]
    assert not set(seen["x"]) & set(seen["z"])
    assert len(set(seen["x"])) == 6


def test_bad_entry_points_are_rejected_with_the_spec_named() -> None:
    with pytest.raises(ValueError, match=r"package\.module:function"):
        load_entry_point("no_colon_here")
    with pytest.raises(ValueError, match="has no attribute"):
        load_entry_point(f"{AGENTS}:does_not_exist")
