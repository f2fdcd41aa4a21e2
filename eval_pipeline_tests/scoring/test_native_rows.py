"""The C rows (``_rows.c``) are the Python reference's (``rows.scored_row``, ``stamp_row``).

Generated values (floats at and past the bounds, NaN, -0.0, ints, bools, numeric strings and
values ``float`` rejects), span id lists with repeats, evidence (empty, None, a mapping that
is not a dict), statuses (of rows without a value, and others), reasons, judge fields, slices:
the row C makes is the reference's field for field, its ``__dict__``'s key order too, or both
raise the same exception; stamping a row in C leaves it as the reference's stamping does.
Scorers whose ``id`` / ``version`` / ``arguments`` properties are their own are asked through
them.
"""

from collections.abc import Iterator, Mapping
from dataclasses import fields
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.scoring import rows
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.score import Score
from eval_pipeline_tests.scoring.scoring_corpus import bench_pairs

_rows = pytest.importorskip("eval_pipeline.scoring._rows")


class _Plain(ScorerBase):
    metric_id = "plain"
    metric_version = 3


class _Renamed(ScorerBase):
    """A scorer whose identity and arguments properties are not the base's."""

    metric_id = "ignored"

    @property
    def id(self) -> str:
        return "renamed"

    @property
    def version(self) -> int:
        return 7

    @property
    def arguments(self) -> dict[str, Any]:
        return {"kept": [1]}


class _Slices(Mapping[str, str]):
    """Slices that are a mapping but not a dict."""

    def __init__(self, data: dict[str, str]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> str:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def _state(row: Score) -> tuple[list[str], str]:
    """The row's dict keys in order, and every field as ``repr`` shows it (types included)."""
    values = tuple(getattr(row, f.name) for f in fields(Score))
    return list(row.__dict__), repr(values) + repr(tuple(type(v) for v in values))


def _outcome(make: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "row", _state(make(*args))
    except Exception as exc:
        return "raised", type(exc)


_TEXT = st.sampled_from(["", "a", "b", "span-1"])
_VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, 2, -1, True, False, -0.0, "0.5", "x", None, [1]]),
)
_EVIDENCE = st.one_of(
    st.none(),
    st.dictionaries(_TEXT, st.integers(), max_size=2),
    st.dictionaries(_TEXT, st.integers(), max_size=2).map(lambda d: list(d.items())),
)


@settings(max_examples=300, deadline=None)
@given(
    scorer=st.sampled_from([_Plain(), _Renamed()]),
    status=st.sampled_from(["unscored", "not_applicable", "error", "scored", "bogus"]),
    reason=_TEXT,
    evidence=_EVIDENCE,
    judge=st.sampled_from([(None, None), ("fp", "backend")]),
)
def test_a_c_row_without_a_value_is_the_references(
    scorer: ScorerBase,
    status: str,
    reason: str,
    evidence: Any,
    judge: tuple[str | None, str | None],
) -> None:
    run, _ = bench_pairs(1)[0]
    args = (scorer, run, status, reason, evidence, *judge)
    assert _outcome(rows.unvalued, *args) == _outcome(rows.unvalued_row, *args)
    made = _rows.unvalued(*args)
    assert (made is None) is (status in ("scored", "bogus"))


@settings(max_examples=800, deadline=None)
@given(
    scorer=st.sampled_from([_Plain(), _Renamed()]),
    value=_VALUES,
    reason=_TEXT,
    span_ids=st.one_of(st.lists(_TEXT, max_size=5), st.lists(_TEXT, max_size=3).map(tuple)),
    evidence=_EVIDENCE,
    judge=st.sampled_from([(None, None), ("fp", "backend")]),
)
def test_a_c_row_is_the_references(
    scorer: ScorerBase,
    value: Any,
    reason: str,
    span_ids: Any,
    evidence: Any,
    judge: tuple[str | None, str | None],
) -> None:
    run, _ = bench_pairs(1)[0]
    args = (scorer, run, value, reason, span_ids, evidence, *judge)
    assert _outcome(_rows.scored, *args) == _outcome(rows.scored_row, *args)


@settings(max_examples=500, deadline=None)
@given(
    own=st.dictionaries(_TEXT, _TEXT, max_size=2),
    item_slices=st.dictionaries(_TEXT, _TEXT, max_size=2),
    mapping=st.booleans(),
    trace=st.sampled_from([None, "t-row"]),
    scorer=st.sampled_from([_Plain(), _Renamed()]),
    build=st.sampled_from([None, "b1"]),
    run_index=st.sampled_from([None, 0, 2]),
)
def test_c_stamps_a_row_as_the_reference(
    own: dict[str, str],
    item_slices: dict[str, str],
    mapping: bool,
    trace: str | None,
    build: str | None,
    run_index: int | None,
    scorer: ScorerBase,
) -> None:
    run, _ = bench_pairs(1)[0]
    stamped = []
    for stamp in (_rows.stamp, rows.stamp_row):
        row = rows.scored_row(_Plain(), run, 0.5, "r", ["a"], {"k": 1}, None, None)
        row.__dict__["slices"] = dict(own)
        row.__dict__["trace_id"] = trace
        slices = _Slices(item_slices) if mapping else item_slices
        stamp(row, build, "item", run_index, slices, "t-run", scorer)
        stamped.append(_state(row))
    assert stamped[0] == stamped[1]


def test_the_suite_makes_its_rows_in_c() -> None:
    assert rows.scored is _rows.scored
    assert rows.stamp is _rows.stamp
    run, _ = bench_pairs(1)[0]
    assert _rows.unvalued(_Plain(), run, "unscored", "why", None, None, None) is not None
