"""BFCL answers are judged by the official checker's rules, item by item.

Contract: ``bfcl_checker.check_answer`` gives the leaderboard's verdict on a whole answer: the
number of calls, order-free (greedy) pairing of parallel calls, element types inside arrays,
empty values for omittable parameters, functions without parameters. Measured against the
official ``ast_checker``'s verdicts on 5,392 committed outputs over five categories
(``data/bfcl_checker``), agreement is at least 0.99 in every category.
"""

from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.scoring.arguments import check_arguments
from eval_pipeline.scoring.bfcl_checker import check_answer
from eval_pipeline_tests.scoring.bfcl_agreement import by_variant, load_items, measure, read_cases
from eval_pipeline_tests.scoring.builders import call

DATA = Path(__file__).resolve().parents[2] / "data/bfcl_checker"
FLOATS = {"type": "array", "items": {"type": "float"}}
INTS = {"type": "array", "items": {"type": "integer"}}


def _schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": []}


@pytest.fixture(scope="module")
def agreement() -> Any:
    items = load_items(
        [DATA / "bfcl_v4_questions.jsonl.gz", DATA / "bfcl_v4_possible_answer.jsonl.gz"]
    )
    return measure(read_cases(DATA / "official_verdicts.jsonl.gz"), items)


def test_agreement_with_the_official_checker_per_category(agreement: Any) -> None:
    assert set(agreement.cases) == {
        "simple_python",
        "multiple",
        "parallel",
        "parallel_multiple",
        "live_simple",
    }
    assert sum(agreement.cases.values()) == 5392
    for category in agreement.cases:
        assert agreement.rate(category) >= 0.99, (category, by_variant(agreement.misses))
    assert agreement.rate() >= 0.99


def test_elements_inside_arrays_have_the_items_type() -> None:
    expected = {"xs": [[1.0, 2.5]]}
    assert check_arguments({"xs": [1.0, 2.5]}, expected, _schema(xs=FLOATS)).valid
    check = check_arguments({"xs": [1, 2.5]}, expected, _schema(xs=FLOATS))
    assert not check.valid and "must be of type float" in check.errors[0]
    assert not check_arguments({"ns": [1.0, 2.0]}, {"ns": [[1, 2]]}, _schema(ns=INTS)).valid
    assert not check_arguments({"ns": [True, 2]}, {"ns": [[1, 2]]}, _schema(ns=INTS)).valid
    # As in BFCL: elements are not type-checked when the parameter may be omitted.
    assert check_arguments({"xs": [1, 2.5]}, {"xs": [[1.0, 2.5], ""]}, _schema(xs=FLOATS)).valid


def test_an_empty_value_stands_for_an_omitted_parameter() -> None:
    schema = _schema(tags={"type": "array", "items": {"type": "string"}}, who={"type": "string"})
    assert check_arguments(
        {"tags": [], "who": ""}, {"tags": [["a"], ""], "who": ["Ada", ""]}, schema
    ).valid
    assert not check_arguments({"tags": []}, {"tags": [["a"]]}, schema).valid


def test_any_means_a_string() -> None:
    schema = _schema(v={"type": "any"})
    assert check_arguments({"v": "x"}, {"v": ["x"]}, schema).valid
    assert not check_arguments({"v": 7}, {"v": ["7"]}, schema).valid


def _item(*steps: ExpectedToolCall, schema: dict[str, Any] | None = None) -> DatasetItem:
    schemas = tuple(
        {"name": s.name, "parameters": schema or _schema()}
        for s in {s.name: s for s in steps}.values()
    )
    return DatasetItem(item_id="i", expected_tool_calls=steps, tool_schemas=schemas)


def test_the_number_of_calls_must_match() -> None:
    item = _item(ExpectedToolCall("f", {"x": [1]}), schema=_schema(x={"type": "integer"}))
    assert check_answer([call("f", {"x": 1})], item).valid
    repeated = check_answer([call("f", {"x": 1}), call("f", {"x": 1})], item)
    assert not repeated.valid and "wrong number of calls" in repeated.errors[0]
    assert not check_answer([], item).valid


def test_parallel_calls_pair_in_any_order_greedily() -> None:
    schema = _schema(d={"type": "string"})
    item = _item(
        ExpectedToolCall("f", {"d": ["jan", "feb"]}),
        ExpectedToolCall("f", {"d": ["jan"]}),
        schema=schema,
    )
    # feb then jan: each expected call finds its own call.
    assert check_answer([call("f", {"d": "feb"}), call("f", {"d": "jan"})], item).valid
    # jan then feb: the first expected call takes "jan", the second finds nothing: BFCL fails it.
    assert not check_answer([call("f", {"d": "jan"}), call("f", {"d": "feb"})], item).valid


def test_a_function_without_parameters_takes_no_argument() -> None:
    item = _item(ExpectedToolCall("version", {}))
    assert check_answer([call("version", {})], item).valid
    assert not check_answer([call("version", {"zz": 1})], item).valid
