"""``guard.all_storable`` (the batch check ingest runs first) agrees with ``cheap_problem``.

Ingest keeps a whole batch without looking at its rows one by one when ``all_storable`` says
so; that must never keep a row ``cheap_problem`` would reject. Hypothesis draws rows whose
integer columns hold int64 bounds, values past them, None, bools, floats (NaN included) and
whose attributes may carry eval-context values, good or bad.
"""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.ingest.guard import INT64_MAX, all_storable, cheap_problem
from eval_pipeline.traces.store.span_table import ROW_FIELDS

_INT_FIELDS = ("start_time_unix_nano", "end_time_unix_nano", "input_tokens", "output_tokens")
_VALUES = st.one_of(
    st.none(),
    st.integers(-INT64_MAX - 1, INT64_MAX),
    st.sampled_from([-INT64_MAX - 2, INT64_MAX + 1, 2**70, True, 1.5, float("nan")]),
)
_ATTRIBUTES = st.dictionaries(
    st.sampled_from(["a", eval_context.RUN_INDEX, eval_context.BUILD_ID]),
    st.sampled_from([0, -1, "", "b1", None]),
    max_size=3,
)


def _row(ints: list[Any], attributes: dict[str, Any]) -> tuple[Any, ...]:
    values: dict[str, Any] = dict.fromkeys(ROW_FIELDS)
    values.update(zip(_INT_FIELDS, ints, strict=True))
    values["attributes"] = attributes
    return tuple(values[name] for name in ROW_FIELDS)


_ROWS = st.lists(
    st.builds(_row, st.lists(_VALUES, min_size=4, max_size=4), _ATTRIBUTES), max_size=6
)


@settings(max_examples=300, deadline=None)
@given(_ROWS)
def test_a_batch_all_storable_holds_no_row_cheap_problem_rejects(rows):
    if all_storable(rows):
        assert [cheap_problem(row) for row in rows] == [None] * len(rows)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(-(2**65), 2**65) | st.none(), min_size=4, max_size=4)))
def test_plain_rows_are_decided_alike_both_ways(int_rows):
    rows = [_row(ints, {"a": 1}) for ints in int_rows]
    assert all_storable(rows) == all(cheap_problem(row) is None for row in rows)
