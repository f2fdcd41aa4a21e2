"""Stages reuse a build's assembled runs only while its stored parts are unchanged."""

from eval_pipeline.evaluation.stages import open_stage, stored_runs
from eval_pipeline.home import current_home
from eval_pipeline.runners.sink import TraceStoreSink
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import make_span


def _root(trace: str) -> Span:
    return make_span(trace_id=trace * 32, span_id=trace * 16, operation="invoke_agent")


def test_a_new_part_is_seen_and_an_unchanged_store_is_not_reread() -> None:
    home = current_home().ensure()
    sink = TraceStoreSink(TraceStore(home.store))
    stage = open_stage(home, "cache-b", "otel-smoke")
    sink.write([_root("a")], build="cache-b")
    first = stored_runs(stage)
    assert [r.trace_id for r in first] == ["a" * 32]
    again = stored_runs(stage)
    assert again == first and again is not first  # the kept runs, in a fresh list
    assert all(x is y for x, y in zip(again, first, strict=True))
    sink.write([_root("b")], build="cache-b")
    assert sorted(r.trace_id for r in stored_runs(stage)) == ["a" * 32, "b" * 32]
