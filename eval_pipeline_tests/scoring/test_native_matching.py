"""The C alignment (``_matching.c``) is the Python functions' (``scoring.alignment``).

Generated runs and trajectories over a few tool names: calls whose arguments are dicts, JSON
text, None or not an object; steps with and without arguments, optional or not, several of a
tool; with and without schemas. C's ``Alignment`` (every field, in its dict's order) is the
reference's, with arguments and by name alone, or C leaves the run to it (None). On the scoring
corpus, C aligns every run with every trajectory, as the reference does.
"""

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.scoring import alignment, matching
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


def _same_alignment(
    calls: tuple[ToolCall, ...], steps: tuple[ExpectedToolCall, ...], schemas: Any
) -> bool:
    """Whether C aligned (as the reference does, checked, both ways); False when it left it."""
    for with_arguments in (True, False):
        native = _matching.align(
            alignment.Alignment, calls, steps, schemas, alignment.fits, with_arguments, 3
        )
        if native is None:
            return False
        reference = (
            alignment.aligned(calls, steps, schemas, True, 3)
            if with_arguments
            else alignment.aligned_by_name(calls, steps, 3)
        )
        assert type(native) is alignment.Alignment
        assert list(native.__dict__.items()) == list(reference.__dict__.items()), (calls, steps)
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
    assert _same_alignment(_calls(calls), trajectory, schemas)


def test_a_name_that_is_not_a_str_is_left_to_the_reference() -> None:
    calls = _calls([("get", {})])
    steps = (ExpectedToolCall(1, {}),)  # type: ignore[arg-type]
    assert _matching.align(alignment.Alignment, calls, steps, {}, alignment.fits, True, 0) is None


def test_c_matches_the_scoring_corpus_as_the_reference() -> None:
    matched = 0
    for _, pairs, _ in corpora():
        for run, item in pairs:
            for steps in matching.trajectories(item):
                assert _same_alignment(run.tool_calls, tuple(steps), matching.tool_schemas(item))
                matched += 1
    assert matched > 1000
