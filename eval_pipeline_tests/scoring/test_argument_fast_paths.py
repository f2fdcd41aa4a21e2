"""The argument checker's short cuts give the verdicts of the general comparisons.

The verdict-only check passes verbatim values without the typed comparison; a list of plain
strings is compared by its normalised forms at once. Both are checked on generated arguments
against the explained check and the element-wise comparison.
"""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.scoring.argument_values import _equal, _list_equal
from eval_pipeline.scoring.arguments import check_arguments

_SCALARS = st.sampled_from(
    ["", " ", "Paris", "paris", "PA-RIS", "[x]", 0, 1, 1.0, 2.5, True, False]
)
_VALUES = st.one_of(
    _SCALARS, st.none(), st.lists(_SCALARS, max_size=3), st.dictionaries(st.just("k"), _SCALARS)
)
_NAMES = st.sampled_from(["a", "b", "c"])
_SCHEMAS = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "properties": st.dictionaries(
                _NAMES,
                st.fixed_dictionaries(
                    {"type": st.sampled_from(["string", "integer", "number", "boolean", "array"])}
                ),
                max_size=3,
            ),
            "required": st.lists(_NAMES, max_size=2),
        }
    ),
)


@settings(max_examples=600, deadline=None)
@given(
    actual=st.dictionaries(_NAMES, _VALUES, max_size=3),
    expected=st.dictionaries(_NAMES, st.lists(_VALUES, min_size=1, max_size=3), max_size=3),
    schema=_SCHEMAS,
)
def test_the_verdict_only_check_is_the_explained_checks_verdict(
    actual: dict[str, Any], expected: dict[str, list[Any]], schema: dict[str, Any] | None
) -> None:
    verdict = check_arguments(actual, expected, schema, explain=False).valid
    assert verdict == check_arguments(actual, expected, schema).valid


_STRINGS = st.lists(st.sampled_from(["Paris", "paris", "p a-r_is", "Rome", "", "[x]", "x"]))


@settings(max_examples=400, deadline=None)
@given(value=_STRINGS, candidate=_STRINGS, item_type=st.sampled_from(["", "string", "integer"]))
def test_plain_string_lists_compare_as_their_elements_do(
    value: list[str], candidate: list[str], item_type: str
) -> None:
    schema = {"items": {"type": item_type}} if item_type else None
    expected = len(value) == len(candidate) and all(
        _equal(a, b, item_type, schema and schema["items"])
        for a, b in zip(value, candidate, strict=False)
    )
    assert _list_equal(value, candidate, schema) == expected
