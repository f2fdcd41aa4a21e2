"""The C argument verdict (``_argcheck.c``) is the Python reference's wherever it answers.

``_argcheck.acceptable`` gives ``arguments._acceptable``'s verdict or None (the reference then
decides), ``_argcheck.value_acceptable`` that of ``value_error(...) is None`` for one value.
Generated arguments, acceptable values, schemas and required lists mix the JSON types and their
look-alikes (``1`` / ``1.0`` / ``True``, NaN, ints too large for a float), strings that differ
only in what the normalisation drops or folds, non-ASCII strings, strings holding ``[`` or a
redaction token, the omission ``""``, nesting, and a str subclass: on each,
an answer from C equals the reference's, and an exception of the reference is C's too or a
None. On the scoring corpus (every call against every step of its tool) C answers every
check of the benchmark's runs and agrees with the reference on all of them.
"""

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.scoring import arguments
from eval_pipeline.scoring.matching import tool_schemas, trajectories
from eval_pipeline_tests.scoring.scoring_corpus import corpora

_argcheck = pytest.importorskip("eval_pipeline.scoring._argcheck")
native = _argcheck.acceptable


class _Text(str):
    """A str subclass: C leaves it to the reference."""


_TOKEN = "[EMAIL:" + "0123456789abcdef01234567" + "]"
_STRINGS = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "-_",
            "Paris",
            "paris",
            "PA-RIS",
            "pa'ris",
            'pa"ris',
            "Par is.",
            "Rome",
            "#W123",
            "#w 123",
            "[x]",
            _TOKEN,
            "Zürich",
            "zürich",
            "ß",
            "İ",
            "1",
            "1.0",
        ]
    ),
    st.text(alphabet=" ,./-_*^'\"aAbB1[]é", max_size=6),
)
_SCALARS = st.one_of(
    _STRINGS,
    st.sampled_from(
        [0, 1, -1, 2**70, 1.0, 0.0, -0.0, 2.5, float("nan"), float("inf"), True, False, None]
    ),
    st.builds(_Text, st.sampled_from(["Paris", ""])),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["k", "m"]), st.one_of(inner, st.lists(inner, max_size=2)), max_size=2
        ),
        st.tuples(inner),
    ),
    max_leaves=6,
)
_NAMES = st.sampled_from(["a", "b", "c"])
_TYPES = st.one_of(
    st.sampled_from(
        [
            "string",
            "any",
            "integer",
            "float",
            "number",
            "boolean",
            "array",
            "tuple",
            "dict",
            "object",
            "mystery",
        ]
    ),
    st.none(),
    st.just(["string", "null"]),
)
_PARAMETER: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"type": _TYPES}),
    st.fixed_dictionaries(
        {"type": st.just("array"), "items": st.fixed_dictionaries({"type": _TYPES})},
        optional={"uniqueItems": st.booleans()},
    ),
    st.just({"description": "no type"}),
)


def _variant(value: Any, how: int) -> Any:
    """``value`` as a look-alike: what the normalisation folds or drops changed, or a type."""
    if isinstance(value, str):
        return [
            value.upper(),
            value.replace("'", '"'),
            value.replace('"', "'"),
            f" {value}-",
            value.lower() + "_",
            value + "x",
        ][how % 6]
    if isinstance(value, bool | int | float):
        return [
            float(value),
            int(value) if value == value and abs(value) < 1e300 else value,
            str(value),
            value,
        ][how % 4]
    if isinstance(value, list):
        return [_variant(element, how) for element in value]
    if isinstance(value, dict):
        return {key: [_variant(inner, how)] for key, inner in value.items()}
    return value


@st.composite
def _checks(draw: st.DrawFn) -> tuple[Any, Any, Any, Any]:
    """(arguments, expected, properties, required), the expected values often the arguments'."""
    actual = draw(st.dictionaries(_NAMES, _VALUES, max_size=3))
    expected: dict[str, Any] = {}
    for name in draw(st.lists(_NAMES, max_size=3, unique=True)) + list(actual):
        options = draw(st.lists(_VALUES, max_size=2))
        if name in actual and draw(st.booleans()):
            options.insert(draw(st.integers(0, len(options))), actual[name])
        if name in actual and draw(st.booleans()):
            options.insert(0, _variant(actual[name], draw(st.integers(0, 11))))
        if draw(st.booleans()):
            options.append("")
        expected[name] = tuple(options) if draw(st.integers(0, 9)) == 0 else options
    properties = draw(st.one_of(st.just({}), st.dictionaries(_NAMES, _PARAMETER, max_size=3)))
    required = draw(st.lists(_NAMES, max_size=2))
    return actual, expected, properties, required


def _same_verdict(actual: Any, expected: Any, properties: Any, required: Any) -> bool | None:
    """C's verdict, after checking it against the reference's; None when C left it."""
    try:
        reference = arguments._acceptable(actual, expected, properties, required)
    except Exception as exc:  # the reference may raise (``float`` of a huge int)
        try:
            answer = native(actual, expected, properties, required)
        except type(exc):
            return None
        assert answer is None, (actual, expected, properties, required, exc)
        return None
    answer = native(actual, expected, properties, required)
    assert answer is None or answer is reference, (actual, expected, properties, required)
    return answer


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(check=_checks())
def test_c_answers_as_the_reference(check: tuple[Any, Any, Any, Any]) -> None:
    _same_verdict(*check)


@settings(max_examples=2000, deadline=None)
@given(
    value=_VALUES,
    how=st.integers(0, 11),
    omittable=st.booleans(),
    parameter=st.one_of(st.none(), _PARAMETER),
)
def test_c_compares_look_alikes_as_the_reference(
    value: Any, how: int, omittable: bool, parameter: dict[str, Any] | None
) -> None:
    options = [_variant(value, how)] + ([""] if omittable else [])
    properties = {} if parameter is None else {"a": parameter}
    _same_verdict({"a": value}, {"a": options}, properties, ["a"])


@settings(max_examples=2000, deadline=None)
@given(
    value=_VALUES,
    options=st.lists(_VALUES, max_size=3),
    how=st.integers(0, 11),
    omittable=st.booleans(),
    parameter=st.one_of(st.none(), _PARAMETER),
)
def test_c_judges_one_value_as_value_error(
    value: Any, options: list[Any], how: int, omittable: bool, parameter: dict[str, Any] | None
) -> None:
    acceptable = [*options, _variant(value, how)] + ([""] if omittable else [])
    try:
        reference = arguments.value_error(value, acceptable, parameter) is None
    except Exception as exc:
        with pytest.raises(type(exc)):
            if _argcheck.value_acceptable(value, acceptable, parameter) is None:
                raise exc
        return
    answer = _argcheck.value_acceptable(value, acceptable, parameter)
    assert answer is None or answer is reference, (value, acceptable, parameter)


def test_c_decides_the_plain_cases_itself() -> None:
    """Not a C that always defers: the common shapes are answered in C."""
    assert native({"a": "Paris"}, {"a": ["pa-ris"]}, {}, []) is True
    assert native({"a": "Rome"}, {"a": ["Paris"]}, {}, []) is False
    assert native({"a": 3}, {"a": [3.0]}, {}, []) is True
    assert native({"a": [{"k": "x"}]}, {"a": [[{"k": ["X", ""]}]]}, {}, []) is True
    assert native({}, {"a": ["", "x"]}, {}, ["a"]) is False
    assert native({"a": "x"}, {"a": ["x"]}, {"a": {"type": "string"}}, ["a"]) is True
    # Left to the reference: a possible token, non-ASCII, a typed schema check.
    assert native({"a": _TOKEN}, {"a": ["ann@example.com"]}, {}, []) is None
    assert native({"a": "Zürich"}, {"a": ["zurich"]}, {}, []) is None
    assert native({"a": 3}, {"a": [3.0]}, {"a": {"type": "number"}}, []) is None


def _corpus_checks() -> list[tuple[str, Any, Any, Any, Any]]:
    checks = []
    for name, pairs, _ in corpora():
        for run, item in pairs:
            schemas = tool_schemas(item)
            for steps in trajectories(item):
                for step in steps:
                    schema = schemas.get(step.name) or {}
                    properties = schema.get("properties") or {}
                    required = schema.get("required") or ()
                    for call in run.tool_calls:
                        parsed = arguments.parse_arguments(call.arguments)
                        if call.name == step.name and step.arguments and parsed is not None:
                            checks.append((name, parsed, step.arguments, properties, required))
    return checks


def test_c_agrees_on_the_scoring_corpus_and_decides_the_benchmarks_checks() -> None:
    undecided: dict[str, int] = {}
    for name, *check in _corpus_checks():
        if _same_verdict(*check) is None:
            undecided[name] = undecided.get(name, 0) + 1
    assert "bench" not in undecided, undecided
