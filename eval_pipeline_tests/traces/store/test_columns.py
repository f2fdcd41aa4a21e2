"""The native column builder (``_columns``) gives ``pa.array``'s table, or leaves it to it."""

from typing import Any

import pyarrow as pa
import pytest

from eval_pipeline.traces.store import plain_columns, span_table
from eval_pipeline.traces.store.span_table import ROW_FIELDS, SCHEMA, rows_table
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import make_span

_INDEX = {name: i for i, name in enumerate(ROW_FIELDS)}


def _row(**values: Any) -> tuple[Any, ...]:
    row = list(span_table.span_row(make_span("1")))
    for name, value in values.items():
        row[_INDEX[name]] = value
    return tuple(row)


def _plain(rows: list[Any]) -> dict[str, pa.Array] | None:
    return plain_columns.plain_arrays(rows, span_table._PLAIN, ROW_FIELDS)


def _with_pa_array(monkeypatch: pytest.MonkeyPatch, rows: list[Any]) -> pa.Table:
    with monkeypatch.context() as patch:
        patch.setattr(plain_columns, "_native", None)
        return rows_table(rows, ["b"] * len(rows), "d")


def test_the_native_builder_is_built_and_takes_plain_rows() -> None:
    assert plain_columns._native is not None  # `setup.py build_ext --inplace`
    assert _plain([_row()]) is not None


def test_native_columns_equal_pa_array_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [
        _row(name="", status_message="é ✓ 𝔘", input_tokens=2**63 - 1, output_tokens=-(2**63)),
        _row(name="x" * 5000, agent_name=None, start_time_unix_nano=0, tool_call_id="call_1"),
        _row(model="gpt-4.1", conversation_id="\x00nul", trace_state="k=v"),
    ] * 7  # past a byte of the validity bitmap
    assert _plain(rows) is not None
    native = rows_table(rows, ["b"] * len(rows), "d")
    assert native.equals(_with_pa_array(monkeypatch, rows))
    assert native.schema == SCHEMA
    assert native.column("tool_call_id").null_count == 14


@pytest.mark.parametrize(
    "values",
    [
        {"input_tokens": 2**63},  # beyond int64
        {"input_tokens": True},  # not exactly an int
        {"name": 5},  # not a string
        {"name": "bad \ud800 surrogate"},  # not UTF-8
    ],
    ids=["int64-overflow", "bool", "int-in-string", "surrogate"],
)
def test_values_it_does_not_take_go_to_pa_array(
    monkeypatch: pytest.MonkeyPatch, values: dict[str, Any]
) -> None:
    rows = [_row(), _row(**values)]
    assert _plain(rows) is None
    try:
        expected: Any = _with_pa_array(monkeypatch, rows)
    except Exception as exc:  # whatever pa.array raises, rows_table raises too
        with pytest.raises(type(exc)):
            rows_table(rows, ["b", "b"], "d")
        return
    assert rows_table(rows, ["b", "b"], "d").equals(expected)


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
