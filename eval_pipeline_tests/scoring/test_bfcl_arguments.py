"""Argument checking agrees with the BFCL checker on real BFCL v4 possible answers.

Every acceptable value of every parameter (including omission where ``""`` allows it and the
schema does not require the parameter, and an integer where the schema says float) is
accepted; perturbed values, wrong types, missing required parameters, unknown parameters and
wrong function names are rejected. At scorer level, a run making the ground-truth calls (in
any order for parallel items) scores 1 on ``argument_correctness`` and ``tool_call_f1``; one
perturbed call lowers both.
"""

import copy
from typing import Any

import pytest

from eval_pipeline.scoring.argument_values import normalise_string
from eval_pipeline.scoring.arguments import check_arguments
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.scoring.bfcl_fixture import (
    canonical_arguments,
    concretise,
    load_rows,
    schema_of,
    to_item,
)
from eval_pipeline_tests.scoring.builders import call, make_run

ROWS = load_rows()


def _expected_calls(row: dict[str, Any]) -> list[tuple[str, dict[str, list[Any]]]]:
    return [(name, params) for entry in row["ground_truth"] for name, params in entry.items()]


def _perturb(value: Any, acceptable: list[Any]) -> Any:
    if isinstance(value, bool):
        return None if (not value) in acceptable else (not value)
    if isinstance(value, int):
        return max(v for v in acceptable if isinstance(v, int | float)) + 7
    if isinstance(value, float):
        return value + 0.123
    if isinstance(value, str):
        changed = value + " zz"
        taken = {normalise_string(v) for v in acceptable if isinstance(v, str)}
        return None if normalise_string(changed) in taken else changed
    if isinstance(value, list):
        return [*value, value[0] if value else "zz"]
    if isinstance(value, dict):
        return {**value, "zz_unknown": 1}
    return None


def test_fixture_covers_the_categories() -> None:
    categories = {row["category"] for row in ROWS}
    assert categories == {"simple_python", "multiple", "parallel", "parallel_multiple"}
    assert sum(row["category"] == "simple_python" for row in ROWS) == 40


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_every_acceptable_value_is_accepted(row: dict[str, Any]) -> None:
    item = to_item(row)
    accepted = 0
    for expected in item.expected_tool_calls:
        schema = schema_of(row, expected.name)
        base = canonical_arguments(expected)
        assert check_arguments(base, expected.arguments, schema).valid
        for param, values in expected.arguments.items():
            declared = schema["properties"][param]["type"]
            for value in values:
                variant = copy.deepcopy(base)
                if value == "":
                    variant.pop(param, None)
                else:
                    variant[param] = concretise(value)
                result = check_arguments(variant, expected.arguments, schema)
                if value == "" and param in schema.get("required", []):
                    # BFCL itself rejects omitting a schema-required parameter even when the
                    # possible answer lists "" for it.
                    assert not result.valid
                    continue
                assert result.valid, (param, value, result.errors)
                accepted += 1
                if isinstance(value, dict):
                    for key, options in value.items():
                        for option in options:
                            nested = copy.deepcopy(variant)
                            if option == "":
                                nested[param].pop(key, None)
                            else:
                                nested[param][key] = option
                            check = check_arguments(nested, expected.arguments, schema)
                            assert check.valid, (param, key, option, check.errors)
                if declared == "float" and isinstance(value, float) and value.is_integer():
                    variant[param] = int(value)
                    assert check_arguments(variant, expected.arguments, schema).valid
    assert accepted >= len(item.expected_tool_calls)


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_perturbations_are_rejected(row: dict[str, Any]) -> None:
    item = to_item(row)
    for expected in item.expected_tool_calls:
        schema = schema_of(row, expected.name)
        base = canonical_arguments(expected)
        extra = {**base, "zz_unexpected": 1}
        assert not check_arguments(extra, expected.arguments, schema).valid
        for param, values in expected.arguments.items():
            concrete = [v for v in values if v != ""]
            if not concrete:
                continue
            perturbed = _perturb(base[param], concrete)
            if perturbed is not None:
                variant = {**base, param: perturbed}
                result = check_arguments(variant, expected.arguments, schema)
                assert not result.valid, (param, perturbed)
            if "" not in values:
                dropped = {k: v for k, v in base.items() if k != param}
                assert not check_arguments(dropped, expected.arguments, schema).valid, param
            if isinstance(base[param], int) and not isinstance(base[param], bool):
                as_text = {**base, param: str(base[param])}
                assert not check_arguments(as_text, expected.arguments, schema).valid, param


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_scorers_accept_ground_truth_in_any_order_and_catch_a_bad_call(
    row: dict[str, Any],
) -> None:
    item = to_item(row)
    calls = [call(e.name, canonical_arguments(e)) for e in reversed(item.expected_tool_calls)]
    arguments = build_scorer("argument_correctness")
    f1 = build_scorer("tool_call_f1")
    good = make_run(calls)
    assert arguments.score(good, item).value == 1.0
    assert f1.score(good, item).value == 1.0
    first = item.expected_tool_calls[0]
    bad_args = dict(canonical_arguments(first))
    bad_args["zz_unexpected"] = 1
    bad = make_run([call(first.name, bad_args), *calls[:-1]])
    bad_score = arguments.score(bad, item)
    assert bad_score.value is not None and bad_score.value < 1.0
    assert bad_score.evidence["failures"][0]["tool"] == first.name
    assert (f1.score(bad, item).value or 0.0) < 1.0


def test_wrong_function_name_is_not_an_argument_match() -> None:
    row = ROWS[0]
    item = to_item(row)
    expected = item.expected_tool_calls[0]
    run = make_run([call(expected.name + "_v2", canonical_arguments(expected))])
    assert build_scorer("tool_correctness").score(run, item).value == 0.0
    unscored = build_scorer("argument_correctness").score(run, item)
    assert unscored.status == "unscored"
