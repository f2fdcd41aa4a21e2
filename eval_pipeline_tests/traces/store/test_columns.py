"""Store rows to Arrow columns and back: every field, in column order."""

from typing import Any

from eval_pipeline.traces.store import span_table
from eval_pipeline.traces.store.span_table import ROW_FIELDS
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import make_span


def test_spans_read_back_as_written(tmp_path: Any) -> None:
    spans = [make_span(str(i), None if i == 1 else "1", name=f"step é {i}") for i in range(1, 12)]
    store = TraceStore(tmp_path)
    assert store.write_spans(spans, build="b") == len(spans)
    assert sorted(store.read_spans("b"), key=lambda s: s.span_id) == spans


def test_span_row_reads_every_field_in_column_order() -> None:
    span = make_span("2", "1", name="chat", model="gpt-4.1", input_tokens=3)
    expected = tuple(getattr(span, name) for name in ROW_FIELDS)
    assert span_table.span_row(span) == expected

    class Partial:  # a field missing from the instance dictionary: read attribute by attribute
        def __getattr__(self, name: str) -> Any:
            return getattr(span, name)

    assert span_table.span_row(Partial()) == expected  # type: ignore[arg-type]
