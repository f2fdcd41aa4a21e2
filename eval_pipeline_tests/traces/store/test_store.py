"""Trace store contract.

Trace store contract: spans round-trip exactly through Parquet, writes are idempotent by
span id, the build comes from the argument, else the trace root's eval context (also for
late spans), else "unassigned", and traces are found by id.
"""

import dataclasses
import shutil

import pyarrow.parquet as pq

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.decode.otlp import JSON, decode_otlp
from eval_pipeline.traces.model import EvalContext, Operation
from eval_pipeline.traces.normalise.normaliser import normalise_spans
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.store.maintenance import clean, compact
from eval_pipeline.traces.store.trace_store import UNASSIGNED, TraceStore
from eval_pipeline_tests.traces.builders import AGENTS, SYNTHETIC, make_span


def _normalised(path):
    return normalise_spans(decode_otlp(path.read_bytes(), content_type=JSON, source="t").spans)


def test_spans_round_trip_exactly(tmp_path):
    spans = []
    for path in [
        AGENTS / "test_recipe_workflow_agent_handoffs_with_function_tools.otlp.json",
        *sorted(SYNTHETIC.glob("*.json")),
    ]:
        spans += _normalised(path)
    store = TraceStore(tmp_path)
    assert store.write_spans(spans, build="b1") == len(spans)
    back = store.read_spans("b1")
    assert sorted(back, key=lambda s: s.span_id) == sorted(spans, key=lambda s: s.span_id)
    assert store.runs("b1") == assemble_runs(spans)


def test_writes_are_idempotent_by_span_id(tmp_path):
    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    store = TraceStore(tmp_path)
    assert store.write_spans(spans[:4], build="b") == 4
    assert store.write_spans(spans, build="b") == len(spans) - 4
    assert TraceStore(tmp_path).write_spans(spans, build="b") == 0  # a fresh instance too
    assert len(store.read_spans("b")) == len(spans)


def test_a_span_twice_in_one_batch_is_stored_once(tmp_path):
    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    store = TraceStore(tmp_path)
    assert store.write_spans([*spans, spans[0]], build="b") == len(spans)
    assert store.write_spans([spans[1], spans[1]], build="c") == 1  # another build: its own keys
    assert sorted(s.span_id for s in store.read_spans("b")) == sorted(s.span_id for s in spans)


def test_build_from_root_eval_context_and_for_late_spans(tmp_path):
    context = eval_context.to_attributes(EvalContext(build_id="cand-7", item_id="i1", run_index=2))
    root = make_span("1", operation=Operation.INVOKE_AGENT, agent_name="A", attributes=context)
    child = make_span("2", "1", operation=Operation.CHAT, start=5)
    late = make_span("3", "1", operation=Operation.CHAT, start=9)
    stray = make_span("1", trace_id="cd" * 16, operation=Operation.CHAT)
    store = TraceStore(tmp_path)
    assert store.write_spans([root, child, stray]) == 3
    assert store.write_spans([late]) == 1  # its root is already stored under cand-7
    assert store.builds() == ["cand-7", UNASSIGNED]
    assert {s.span_id for s in store.read_spans("cand-7")} == {
        root.span_id,
        child.span_id,
        late.span_id,
    }
    (run,) = store.runs("cand-7")
    assert (run.eval_context.item_id, run.eval_context.run_index) == ("i1", 2)
    assert store.write_spans([child], build="explicit") == 1  # the argument wins
    assert "explicit" in store.builds()


def test_day_partitions_and_find_trace(tmp_path):
    spans = _normalised(AGENTS / "test_agent_spans.otlp.json")
    store = TraceStore(tmp_path)
    store.write_spans(spans[:2], build="prod", day="2026-11-29")
    store.write_spans(spans[2:], build="prod", day="2026-11-30")
    assert len(store.read_spans("prod", day="2026-11-29")) == 2
    assert len(store.read_spans("prod")) == len(spans)
    found = store.find_trace(spans[0].trace_id.upper())
    assert found is not None and found[0] == "prod" and len(found[1]) == len(spans)
    assert store.find_trace("00" * 16) is None
    assert list((tmp_path / "spans" / "build=prod").iterdir())


def _write_repeatedly(root: str, start: "object", repeats: int) -> int:
    """In a child process: wait for the start signal, then write the sample spans repeatedly."""
    from pathlib import Path

    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    store = TraceStore(Path(root))
    start.wait()  # type: ignore[attr-defined]
    return sum(store.write_spans(spans, build="shared") for _ in range(repeats))


def test_writers_in_two_processes_store_each_span_once(tmp_path):
    import multiprocessing

    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    context = multiprocessing.get_context("spawn")
    start = context.Manager().Event()
    with context.Pool(2) as pool:
        pending = [pool.apply_async(_write_repeatedly, (str(tmp_path), start, 5)) for _ in range(2)]
        start.set()
        stored = [result.get(timeout=120) for result in pending]
    assert sum(stored) == len(spans)
    assert len(TraceStore(tmp_path).read_spans("shared")) == len(spans)


def test_a_writer_reads_no_part_to_decide_what_is_new(tmp_path, monkeypatch):
    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    first, second = TraceStore(tmp_path), TraceStore(tmp_path)
    assert first.write_spans(spans[:3], build="x") == 3

    def no_reading(*args, **kwargs):
        raise AssertionError("the ledger, not the parts, says what is stored")

    monkeypatch.setattr(pq, "read_table", no_reading)
    assert second.write_spans(spans[:5], build="x") == 2  # first's spans, via the ledger
    assert first.write_spans(spans, build="x") == len(spans) - 5
    assert TraceStore(tmp_path).write_spans(spans, build="x") == 0  # a restart reads nothing
    monkeypatch.undo()
    assert len(TraceStore(tmp_path).read_spans("x")) == len(spans)


def test_an_unrecorded_part_is_never_read_and_clean_removes_it(tmp_path):
    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    store = TraceStore(tmp_path)
    store.write_spans(spans, build="x")
    (part,) = tmp_path.rglob("part-*.parquet")
    orphan = part.with_name("part-" + "0" * 32 + ".parquet")
    shutil.copy(part, orphan)  # as a crash before recording leaves it
    (part.parent / ".part-1.parquet.tmp").write_bytes(b"half")
    assert len(store.read_spans("x")) == len(spans)
    assert clean(store, min_age_seconds=3600) == 0  # too young: maybe another host's
    assert clean(store, min_age_seconds=0) == 2
    assert list(tmp_path.rglob("part-*.parquet")) == [part]


def test_compact_merges_small_parts_and_reads_the_same(tmp_path):
    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    store = TraceStore(tmp_path)
    for span in spans:
        store.write_spans([span], build="x", day="2026-12-01")
    store.write_spans(spans[:1], build="y")
    before = sorted(store.read_spans("x"), key=lambda s: s.span_id)
    assert compact(store) == len(spans)  # y's single part stays
    assert len(list((tmp_path / "spans" / "build=x").rglob("part-*.parquet"))) == 1
    assert sorted(store.read_spans("x"), key=lambda s: s.span_id) == before
    assert store.write_spans(spans, build="x") == 0
    assert compact(store) == 0


def test_a_store_written_before_the_ledger_is_adopted_on_first_open(tmp_path):
    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    old = tmp_path / "old"
    folder = old / "spans" / "build=b" / "day=all"
    folder.mkdir(parents=True)
    # As the store before the ledger wrote it: parts with their build and day columns.
    from eval_pipeline.traces.store.span_table import rows_table, span_row

    rows = [span_row(s) for s in spans]
    pq.write_table(rows_table(rows, ["b"] * len(rows), None), folder / "part-a.parquet")
    store = TraceStore(old)
    assert len(store.read_spans("b")) == len(spans)
    assert store.write_spans(spans, build="b") == 0
    assert TraceStore(old).read_spans("b") == store.read_spans("b")  # adopted once


def test_a_read_that_meets_a_compaction_reads_the_compacted_part(tmp_path, monkeypatch):
    spans = _normalised(AGENTS / "test_agent_with_handoff_spans.otlp.json")
    store = TraceStore(tmp_path)
    for span in spans:
        store.write_spans([span], build="x")
    listed = store._files

    def list_then_compact(build, day=None, trusted=None):
        paths = listed(build, day, trusted)
        if len(paths) > 1:
            compact(store)  # another process compacts between the listing and the reading
        return paths

    monkeypatch.setattr(store, "_files", list_then_compact)
    assert len(store.read_spans("x")) == len(spans)


def test_a_part_written_before_the_added_columns_reads_them_as_empty(tmp_path):
    import pyarrow.parquet as pq

    from eval_pipeline.traces.model import SpanLink
    from eval_pipeline.traces.store.span_table import ADDED_COLUMNS, from_table, to_table

    span = make_span("a1", trace_id="ab" * 16)
    linked = dataclasses.replace(
        span,
        links=(SpanLink("b" * 32, "c" * 16, "k=v", {"n": 1}),),
        trace_state="k=v",
        schema_url="https://opentelemetry.io/schemas/1.37.0",
    )
    table = to_table([linked], ["b"], None)
    assert from_table(table) == [linked]  # the new columns round-trip
    old = tmp_path / "old.parquet"
    pq.write_table(table.drop_columns(list(ADDED_COLUMNS)), old)
    (read,) = from_table(pq.read_table(old))
    assert read == span and (read.links, read.trace_state, read.schema_url) == ((), None, None)
