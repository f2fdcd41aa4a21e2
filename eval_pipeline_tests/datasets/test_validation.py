"""great_expectations validation catches broken datasets.

great_expectations validation passes the shipped and imported datasets and catches broken
ones, naming the rule and the offending items: duplicate ids, expected tools missing from the
tool schema, missing slices, adversarial items without forbidden calls, dangling ordering.
"""

from dataclasses import replace
from pathlib import Path

import pytest

from eval_pipeline.datasets.item import ExpectedToolCall, OrderingConstraint
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.datasets.validation import validate_dataset
from eval_pipeline_tests.datasets.builders import make_dataset, make_item

SLICES = ("intent", "language", "tool")


@pytest.mark.parametrize("ref", ["golden/retail-refunds@v1", "adversarial/banking-injection@v1"])
def test_shipped_datasets_are_valid(ref: str) -> None:
    name, version = ref.split("@")
    result = validate_dataset(default_dataset_store().load(name, version), required_slices=SLICES)
    assert result.success, result.failures
    assert result.statistics["evaluated_expectations"] >= 8


def test_duplicate_ids_and_unknown_tools_are_caught() -> None:
    rogue = make_item(
        "2",
        expected_tool_calls=(
            ExpectedToolCall("get_order_details", {"order_id": ["#W2"]}),
            ExpectedToolCall("issue_refund", {"order_id": ["#W2"]}),
        ),
        ordering=(),
    )
    broken = make_dataset(items=(make_item("1"), make_item("1"), rogue))
    result = validate_dataset(broken)
    assert not result.success
    assert any("item_id is unique" in f and "1" in f for f in result.failures), result.failures
    assert any(
        "expected tools exist in the tool schema" in f and "2 (issue_refund)" in f
        for f in result.failures
    ), result.failures
    assert result.statistics["unsuccessful_expectations"] == 2


def test_missing_slices_and_references_are_caught() -> None:
    bare = make_item("3", expected_tool_calls=(), ordering=(), slices={"intent": "return"})
    result = validate_dataset(make_dataset(items=(make_item("1"), bare)), required_slices=SLICES)
    failures = "\n".join(result.failures)
    assert "slice 'language' present: 1 offending row(s): 3" in failures
    assert "references non-empty (golden): 1 offending row(s): 3" in failures


def test_adversarial_items_need_forbidden_calls() -> None:
    dataset = make_dataset(name="adversarial/x", kind="adversarial")
    result = validate_dataset(dataset)
    assert not result.success
    assert "references non-empty (adversarial)" in result.failures[0]


def test_empty_value_lists_and_dangling_ordering_are_caught() -> None:
    item = make_item(
        "4",
        expected_tool_calls=(ExpectedToolCall("get_order_details", {"order_id": []}),),
        ordering=(OrderingConstraint("get_order_details", "cancel_pending_order"),),
    )
    result = validate_dataset(make_dataset(items=(item,)))
    failures = "\n".join(result.failures)
    assert "acceptable-value lists non-empty: 1 offending row(s): 4" in failures
    assert "ordering names tools of the trajectory: 1 offending row(s): 4" in failures


def test_per_item_tool_schemas_count(tmp_path: Path) -> None:
    item = make_item(
        "5",
        tool_schemas=({"name": "cancel_pending_order", "parameters": {}},),
        expected_tool_calls=(ExpectedToolCall("cancel_pending_order", {}),),
        ordering=(),
    )
    assert validate_dataset(make_dataset(items=(item,), tool_schemas=())).success
    assert not validate_dataset(
        make_dataset(items=(replace(item, tool_schemas=()),), tool_schemas=())
    ).success
