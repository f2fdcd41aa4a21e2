"""Small builders for dataset tests."""

from typing import Any

from eval_pipeline.datasets.artefact import Dataset
from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall, OrderingConstraint


def make_item(item_id: str = "i1", **changes: Any) -> DatasetItem:
    """A golden-style item: a lookup then a refund, ordered, with slices."""
    fields: dict[str, Any] = {
        "item_id": item_id,
        "input_messages": ({"role": "user", "content": f"Refund order #W{item_id}"},),
        "expected_tool_calls": (
            ExpectedToolCall("get_order_details", {"order_id": [f"#W{item_id}"]}),
            ExpectedToolCall(
                "return_delivered_order_items", {"order_id": [f"#W{item_id}"], "item_ids": [["1"]]}
            ),
        ),
        "ordering": (OrderingConstraint("get_order_details", "return_delivered_order_items"),),
        "required_entities": (f"#W{item_id}",),
        "slices": {"intent": "return", "language": "en", "tool": "return_delivered_order_items"},
    }
    fields.update(changes)
    return DatasetItem(**fields)


SCHEMAS = (
    {"name": "get_order_details", "description": "", "parameters": {"type": "object"}},
    {"name": "return_delivered_order_items", "description": "", "parameters": {"type": "object"}},
)


def make_dataset(items: tuple[DatasetItem, ...] | None = None, **changes: Any) -> Dataset:
    """A golden dataset of two items with the tools they use."""
    fields: dict[str, Any] = {
        "name": "golden/support",
        "version": "v1",
        "owner": "support-team",
        "kind": "golden",
        "items": items if items is not None else (make_item("1"), make_item("2")),
        "tool_schemas": SCHEMAS,
    }
    fields.update(changes)
    return Dataset(**fields)
