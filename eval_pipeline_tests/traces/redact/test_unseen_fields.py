"""The native pass of ``unseen_fields`` (``_row_fields.c``) equals its Python reference."""

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.redact import unseen_fields
from eval_pipeline.traces.redact.unseen_fields import unseen_reference

native = pytest.importorskip("eval_pipeline.traces.redact._row_fields")

WIDTH = 9
COLUMNS = (0, 1, 2)
RECORDS = (3, 4, 5, 6)  # attributes, events, links, resource
TEXTS = st.sampled_from(["a", "b", "mail ada@example.com", "", "é", "\ud800"])
RESOURCES = [{"service.name": "x"}, {"service.name": "y"}]


def _sometimes(usual: Any, *rare: Any) -> st.SearchStrategy[Any]:
    """``usual`` nine times in ten, else one of ``rare`` (each of which declines a batch)."""
    return st.integers(0, 9).flatmap(
        lambda n: st.just(usual) if n or not rare else st.sampled_from(rare)
    )


@st.composite
def _row(draw: st.DrawFn) -> Any:
    texts = [draw(st.none() | TEXTS) for _ in COLUMNS]
    texts[0] = draw(_sometimes(texts[0], 7, b"a"))
    keys = draw(st.lists(TEXTS, max_size=3))
    attributes = draw(_sometimes({k: 1 for k in keys}, [("a", 1)]))
    events = draw(_sometimes((), ("event",), []))
    links = draw(_sometimes((), ("link",)))
    resource = RESOURCES[draw(st.integers(0, 1))]
    row = (*texts, attributes, events, links, resource, *[None] * (WIDTH - 7))
    return draw(_sometimes(row, list(row), row[:5]))


@settings(max_examples=400, deadline=None)
@given(st.lists(_row(), max_size=8), st.sets(TEXTS, max_size=3))
def test_native_pass_equals_reference(rows: list[Any], clean: set[str]) -> None:
    expected = unseen_reference(rows, COLUMNS, clean, *RECORDS)
    got = native.unseen(rows, COLUMNS, clean, *RECORDS)
    assert got == expected
    if got is not None:
        assert [id(r) for r in got[2]] == [id(r) for r in expected[2]]


def test_the_usual_batch_is_taken_natively() -> None:
    rows = [("a", None, "b", {"k": 1, "j": 2}, (), (), RESOURCES[0], None, None)] * 3
    rows.append(("c", "a", None, {"k": 1}, (), (), RESOURCES[1], None, None))
    found = native.unseen(rows, COLUMNS, {"j"}, *RECORDS)
    assert found == ([["a", "c"], ["a"], ["b"]], ["k"], RESOURCES)
    assert unseen_fields.unseen(tuple(rows), COLUMNS, {"j"}, *RECORDS) == found


def test_an_index_out_of_the_row_declines() -> None:
    rows = [("a", None, "b", {}, (), (), RESOURCES[0])]
    assert native.unseen(rows, (0, 20), set(), *RECORDS) is None
    assert unseen_reference(rows, (0, 20), set(), *RECORDS) is None
