"""The C matching (``_matching.c``) is the Python search's (``matching._search``).

Generated runs and trajectories over a few tool names: calls whose arguments are dicts, JSON
text, None or not an object; steps with and without arguments, optional or not, several of a
tool; with and without schemas. C's owner map (call index -> step index) is the reference's,
or C leaves the run to it (None). On the scoring corpus, C matches every run of every
trajectory, with the reference's result.
"""

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.scoring import matching
from eval_pipeline.traces.model import ToolCall
from eval_pipeline_tests.scoring.scoring_corpus import corpora

_matching = pytest.importorskip("eval_pipeline.scoring._matching")

_NAMES = st.sampled_from(["get", "cancel", "book"])
_ACTUAL = st.sampled_from(
    [
        {},
        {"id": "#W1"},
        {"id": "#w 1"},
        {"id": "#W2"},
        {"id": 1},
        {"id": "#W1", "n": 2},
        '{"id": "#W1"}',
        "not json",
        None,
        [1],
        {"id": "[EMAIL:x]"},
    ]
)
_EXPECTED = st.sampled_from(
    [{}, {"id": ["#W1"]}, {"id": ["#W2", "#W1"]}, {"id": ["#W1"], "n": ["", 2]}, {"id": [1.0]}]
)
_SCHEMAS = st.sampled_from(
    [{}, {"get": {"properties": {"id": {"type": "string"}, "n": {"type": "integer"}}}}]
)


def _calls(draw_calls: list[tuple[str, Any]]) -> tuple[ToolCall, ...]:
    return tuple(
        ToolCall(name=name, arguments=arguments, result="ok", error=None, span_id=f"{i:016x}")
        for i, (name, arguments) in enumerate(draw_calls)
    )


def _same_owner(
    calls: tuple[ToolCall, ...], steps: tuple[ExpectedToolCall, ...], schemas: Any
) -> bool:
    """Whether C matched (the reference's result, checked); False when it left the run."""
    native = _matching.match(calls, steps, schemas, matching._fits)
    if native is None:
        return False
    assert native == matching._search(calls, steps, schemas, True), (calls, steps, schemas)
    return True


@settings(max_examples=1500, deadline=None)
@given(
    calls=st.lists(st.tuples(_NAMES, _ACTUAL), max_size=7),
    steps=st.lists(st.tuples(_NAMES, _EXPECTED, st.booleans()), max_size=6),
    schemas=_SCHEMAS,
)
def test_c_matches_as_the_reference(
    calls: list[tuple[str, Any]], steps: list[tuple[str, dict[str, list[Any]], bool]], schemas: Any
) -> None:
    trajectory = tuple(ExpectedToolCall(n, a, optional=o) for n, a, o in steps)
    assert _same_owner(_calls(calls), trajectory, schemas)


def test_a_name_that_is_not_a_str_is_left_to_the_reference() -> None:
    calls = _calls([("get", {})])
    assert _matching.match(calls, (ExpectedToolCall(1, {}),), {}, matching._fits) is None  # type: ignore[arg-type]


def test_c_matches_the_scoring_corpus_as_the_reference() -> None:
    matched = 0
    for _, pairs, _ in corpora():
        for run, item in pairs:
            for steps in matching.trajectories(item):
                assert _same_owner(run.tool_calls, tuple(steps), matching.tool_schemas(item))
                matched += 1
    assert matched > 1000
