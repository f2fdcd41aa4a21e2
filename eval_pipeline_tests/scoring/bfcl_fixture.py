"""Loading the committed BFCL sample as dataset items and canonical calls."""

import json
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "bfcl" / "bfcl_v4_sample.jsonl"


def load_rows() -> list[dict[str, Any]]:
    """The committed BFCL rows."""
    return [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]


def to_item(row: dict[str, Any]) -> DatasetItem:
    """A BFCL row as a dataset item (each ground-truth call is an expected call)."""
    expected = tuple(
        ExpectedToolCall(name=name, arguments={k: list(v) for k, v in params.items()})
        for entry in row["ground_truth"]
        for name, params in entry.items()
    )
    return DatasetItem(
        item_id=row["id"],
        expected_tool_calls=expected,
        tool_schemas=tuple(row["function"]),
        input_messages=({"role": "user", "content": row["question"]},),
        slices={"category": row["category"]},
    )


def concretise(value: Any) -> Any:
    """A concrete value from an acceptable value: nested dicts take each key's first option."""
    if isinstance(value, dict):
        out = {}
        for key, options in value.items():
            options = options if isinstance(options, list) else [options]
            concrete = [o for o in options if o != ""]
            if concrete:
                out[key] = concretise(concrete[0])
        return out
    if isinstance(value, list):
        return [concretise(v) if isinstance(v, dict) else v for v in value]
    return value


def canonical_arguments(expected: ExpectedToolCall) -> dict[str, Any]:
    """The first acceptable value of every parameter (omitting the omittable-only ones)."""
    out = {}
    for name, values in expected.arguments.items():
        concrete = [v for v in values if v != ""]
        if concrete:
            out[name] = concretise(concrete[0])
    return out


def schema_of(row: dict[str, Any], name: str) -> dict[str, Any]:
    """The ``parameters`` schema of function ``name`` in the row."""
    return next(f["parameters"] for f in row["function"] if f["name"] == name)
