"""The native builder's encoded columns (``_columns.row_columns``) equal the Python route's.

Every JSON column of a store row (arguments, results, messages, attributes, events, links,
resource) is written natively where its text is plain, else by the column's Python encoder;
the table must equal ``_python_arrays``'s, and values the Python route rejects must raise the
same error.
"""

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.model import Message, SpanEvent, SpanLink
from eval_pipeline.traces.store import plain_columns, span_table
from eval_pipeline.traces.store.span_table import ROW_FIELDS, SCHEMA, rows_table
from eval_pipeline_tests.traces.builders import make_span

_INDEX = {name: i for i, name in enumerate(ROW_FIELDS)}
_SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)

# Text with what JSON escapes (quotes, backslashes, control characters), non-ASCII, and the
# word null (which sends orjson's text to the standard encoder).
_TEXT = st.one_of(
    st.text(max_size=12),
    st.text(alphabet='"\\\x00\x01\x08\t\n\x0c\r\x1f\x7f é✓𝔘null', max_size=12),
    st.sampled_from(["null", "", "nullable"]),
)
# Lone surrogates: not UTF-8, so the Python route raises (or its encoder escapes them).
_ODD_TEXT = st.one_of(_TEXT, st.sampled_from(["\ud800", "a\udfffb"]))


def _columns(text: st.SearchStrategy[str]) -> dict[str, st.SearchStrategy[Any]]:
    """A strategy for each encoded column, its strings drawn from ``text``."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        st.integers(),  # beyond int64 too
        st.floats(allow_nan=True, allow_infinity=True),
        text,
    )
    json = st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.lists(inner, max_size=4).map(tuple),
            st.dictionaries(text, inner, max_size=4),
            st.dictionaries(st.integers(0, 3), inner, max_size=2),  # keys orjson refuses
        ),
        max_leaves=12,
    )
    message = st.builds(
        Message,
        role=st.one_of(text, st.none(), st.integers(0, 3)),
        parts=st.lists(st.dictionaries(text, json, max_size=3), max_size=3).map(tuple),
        name=st.one_of(st.none(), text),
        finish_reason=st.one_of(st.none(), text),
    )
    messages = st.lists(message, max_size=3).map(tuple)
    events = st.lists(
        st.builds(SpanEvent, text, st.integers(0, 2**63 - 1), st.dictionaries(text, json)),
        min_size=1,
        max_size=2,
    ).map(tuple)
    links = st.lists(
        st.builds(SpanLink, text, text, st.none() | text, st.dictionaries(text, json)),
        min_size=1,
        max_size=2,
    ).map(tuple)
    return {
        "tool_arguments": json,
        "tool_result": json,
        "input_messages": messages,
        "output_messages": st.one_of(messages, text),
        "attributes": st.one_of(st.dictionaries(text, json, max_size=5), json),
        "events": st.just(()) | events,
        "links": st.just(()) | links,
        "resource": st.dictionaries(text, json, max_size=3),
    }


_BASE = span_table.span_row(make_span("1"))


@st.composite
def _rows(draw: st.DrawFn, text: st.SearchStrategy[str] = _TEXT) -> list[tuple[Any, ...]]:
    """Rows with drawn encoded columns; some values are one object on several rows."""
    columns = _columns(text)
    shared = {name: draw(strategy) for name, strategy in columns.items()}
    rows = []
    for _ in range(draw(st.integers(1, 6))):
        row = list(_BASE)
        for name, strategy in columns.items():
            row[_INDEX[name]] = shared[name] if draw(st.booleans()) else draw(strategy)
        rows.append(tuple(row))
    return rows


def _python_table(rows: list[tuple[Any, ...]]) -> pa.Table:
    arrays = span_table._python_arrays(rows)
    arrays += [pa.array(["b"] * len(rows)), pa.array(["d"] * len(rows))]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def _assert_same(rows: list[tuple[Any, ...]]) -> None:
    try:
        expected = _python_table(rows)
    except Exception as exc:  # the native route declines, and the Python route raises this
        assert plain_columns.row_arrays(rows, span_table._ROW_SPECS, Message) is None
        with pytest.raises(type(exc)):
            rows_table(rows, ["b"] * len(rows), "d")
        return
    assert rows_table(rows, ["b"] * len(rows), "d").equals(expected)


def test_the_native_builder_takes_plain_encoded_columns() -> None:
    message = Message("user", ({"type": "text", "content": 'say "hi"\n'},), "n", "stop")
    row = list(_BASE)
    row[_INDEX["tool_arguments"]] = {"city": "Zürich", "days": [1, -2, True, None]}
    row[_INDEX["input_messages"]] = (message, message)
    row[_INDEX["output_messages"]] = '[{"role":"assistant","parts":[]}]'
    rows = [tuple(row), _BASE]
    assert plain_columns.row_arrays(rows, span_table._ROW_SPECS, Message) is not None
    _assert_same(rows)


@_SETTINGS
@given(_rows())
def test_encoded_columns_equal_the_python_route(rows: list[tuple[Any, ...]]) -> None:
    _assert_same(rows)


@_SETTINGS
@given(_rows(_ODD_TEXT))
def test_text_that_is_not_utf8_is_left_to_the_python_route(rows: list[tuple[Any, ...]]) -> None:
    _assert_same(rows)


def test_an_unserialisable_value_raises_the_python_error() -> None:
    row = list(_BASE)
    row[_INDEX["attributes"]] = {"when": object()}
    with pytest.raises(TypeError, match="not JSON serializable"):
        rows_table([_BASE, tuple(row)], ["b", "b"], "d")


def test_escapes_anywhere_in_long_text_equal_the_python_route() -> None:
    # The writer copies runs of plain bytes eight at a time: an escape at every offset.
    rows = []
    for char in '"\\\x00\x1f\n\x7fé𝔘':
        for offset in range(20):
            row = list(_BASE)
            row[_INDEX["attributes"]] = {"k" * offset: "a" * offset + char + "b" * (19 - offset)}
            rows.append(tuple(row))
    assert plain_columns.row_arrays(rows, span_table._ROW_SPECS, Message) is not None
    _assert_same(rows)
