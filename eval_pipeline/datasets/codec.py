"""JSON form of dataset items: one JSON object per item, stable across versions.

The encoding is canonical (sorted keys, no insignificant whitespace) so the same items always
produce the same bytes, which is what the content hash of a dataset version is computed over.
"""

import json
from typing import Any

from eval_pipeline import json_input
from eval_pipeline.datasets.item import (
    DatasetItem,
    ExpectedToolCall,
    ForbiddenCall,
    OrderingConstraint,
)


class ItemDecodeError(ValueError):
    """An item's JSON does not match the item schema; the message names the field."""


def item_to_dict(item: DatasetItem) -> dict[str, Any]:
    """The JSON-safe dict form of ``item`` (tuples become lists)."""
    return {
        "item_id": item.item_id,
        "input_messages": [dict(m) for m in item.input_messages],
        "reference_answer": item.reference_answer,
        "expected_tool_calls": [c.to_dict() for c in item.expected_tool_calls],
        "alternative_trajectories": [
            [c.to_dict() for c in trajectory] for trajectory in item.alternative_trajectories
        ],
        "ordering": [{"before": o.before, "after": o.after} for o in item.ordering],
        "forbidden_calls": [
            {"name": f.name, "arguments": dict(f.arguments), "reason": f.reason}
            for f in item.forbidden_calls
        ],
        "required_outputs": list(item.required_outputs),
        "required_entities": list(item.required_entities),
        "canaries": list(item.canaries),
        "expected_end_state": item.expected_end_state,
        "assertions": list(item.assertions),
        "tool_schemas": [dict(s) for s in item.tool_schemas],
        "slices": dict(item.slices),
        "provenance": dict(item.provenance),
    }


def _strings(data: dict[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise ItemDecodeError(f"{key}: expected a list, got {type(value).__name__}")
    return tuple(str(v) for v in value)


def _calls(value: Any, key: str) -> tuple[ExpectedToolCall, ...]:
    if not isinstance(value, list):
        raise ItemDecodeError(f"{key}: expected a list of tool calls")
    try:
        return tuple(ExpectedToolCall.from_dict(c) for c in value)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ItemDecodeError(f"{key}: malformed tool call ({exc})") from exc


def item_from_dict(data: dict[str, Any]) -> DatasetItem:
    """Inverse of ``item_to_dict``; raises ``ItemDecodeError`` naming the bad field."""
    if not isinstance(data, dict):
        raise ItemDecodeError(f"item: expected an object, got {type(data).__name__}")
    item_id = data.get("item_id")
    if not isinstance(item_id, str) or not item_id:
        raise ItemDecodeError("item_id: missing or not a non-empty string")
    try:
        ordering = tuple(
            OrderingConstraint(before=str(o["before"]), after=str(o["after"]))
            for o in data.get("ordering") or []
        )
    except (KeyError, TypeError) as exc:
        raise ItemDecodeError(f"{item_id}: ordering: malformed constraint ({exc})") from exc
    try:
        forbidden = tuple(
            ForbiddenCall(
                name=str(f["name"]),
                arguments=dict(f.get("arguments") or {}),
                reason=str(f.get("reason", "")),
            )
            for f in data.get("forbidden_calls") or []
        )
    except (KeyError, TypeError) as exc:
        raise ItemDecodeError(f"{item_id}: forbidden_calls: malformed call ({exc})") from exc
    reference = data.get("reference_answer")
    return DatasetItem(
        item_id=item_id,
        input_messages=tuple(dict(m) for m in data.get("input_messages") or []),
        reference_answer=None if reference is None else str(reference),
        expected_tool_calls=_calls(data.get("expected_tool_calls") or [], "expected_tool_calls"),
        alternative_trajectories=tuple(
            _calls(t, "alternative_trajectories")
            for t in data.get("alternative_trajectories") or []
        ),
        ordering=ordering,
        forbidden_calls=forbidden,
        required_outputs=_strings(data, "required_outputs"),
        required_entities=_strings(data, "required_entities"),
        canaries=_strings(data, "canaries"),
        expected_end_state=data.get("expected_end_state"),
        assertions=_strings(data, "assertions"),
        tool_schemas=tuple(dict(s) for s in data.get("tool_schemas") or []),
        slices={str(k): str(v) for k, v in dict(data.get("slices") or {}).items()},
        provenance=dict(data.get("provenance") or {}),
    )


def canonical_json(value: Any) -> str:
    """Deterministic JSON text (sorted keys, compact, UTF-8 kept) used for hashing and JSONL."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def item_to_json(item: DatasetItem) -> str:
    """One JSONL line (without the newline) for ``item``."""
    return canonical_json(item_to_dict(item))


def item_from_json(text: str) -> DatasetItem:
    """Parse one JSONL line back into an item."""
    try:
        data = json_input.loads(text)
    except json.JSONDecodeError as exc:
        raise ItemDecodeError(f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    return item_from_dict(data)
