"""The item format a user writes, and how it maps onto the item model (``item.DatasetItem``).

The format is published as a JSON Schema, ``datasets/item.schema.json`` (package data), and
documented field by field in ``docs/datasets.md`` (a test holds the two together). It is the
item model with friendlier spellings: ``input`` is a string or a list of messages, an expected
call gives each argument's one expected value (``also_accept`` and ``may_omit`` widen it, where
the model lists every acceptable value and marks an omittable one with ``""``), ``metadata``
is the item's provenance. The schema is checked with ``jsonschema`` (Draft 2020-12); each
problem is reported with the path of the field at fault.
"""

import json
from functools import cache
from typing import Any

from eval_pipeline.datasets.conversation import ConversationError, ConversationScript
from eval_pipeline.datasets.item import (
    DatasetItem,
    ExpectedToolCall,
    ForbiddenCall,
    OrderingConstraint,
)
from eval_pipeline.package_data import package_path

SCHEMA_FILE = "item.schema.json"
TEXT_FIELDS = frozenset({"item_id", "input", "reference_answer"})
"""Fields a CSV cell holds as plain text; every other field's cell holds JSON text."""


@cache
def item_schema() -> dict[str, Any]:
    """The published item schema (``datasets/item.schema.json``)."""
    loaded: dict[str, Any] = json.loads(
        package_path("eval_pipeline.datasets", SCHEMA_FILE).read_text(encoding="utf-8")
    )
    return loaded


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = item_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@cache
def _tools_validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = item_schema()
    return Draft202012Validator(
        {
            "type": "array",
            "items": {"$ref": "#/$defs/tool_schema"},
            "$defs": schema["$defs"],
        }
    )


def _where(path: Any, root: str = "(item)") -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or root


def _message(error: Any) -> str:
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        if extra:
            return f"unknown field {extra[0]!r}"
    if error.validator == "oneOf" and error.context:
        return str(min(error.context, key=lambda e: len(e.path)).message)
    return str(error.message)


def schema_problems(data: Any) -> list[tuple[str, str]]:
    """Every way ``data`` breaks the item schema: ``(field path, message)``, in field order.

    Beyond the schema: a conversation's ``when`` patterns must be regular expressions.
    """
    errors = sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.path])
    found = [(_where(error.absolute_path), _message(error)) for error in errors]
    if not found and isinstance(data, dict) and "conversation" in data:
        try:
            ConversationScript.from_dict(data["conversation"])
        except ConversationError as exc:
            path, _, message = str(exc).partition(": ")
            found.append((path, message))
    return found


def tool_schemas_problems(data: Any) -> list[tuple[str, str]]:
    """How a tools file's content breaks the form of ``tool_schemas`` (a list of definitions)."""
    errors = sorted(_tools_validator().iter_errors(data), key=lambda e: [str(p) for p in e.path])
    return [(_where(error.absolute_path, "(tools)"), _message(error)) for error in errors]


def _expected(call: dict[str, Any]) -> ExpectedToolCall:
    arguments: dict[str, list[Any]] = {k: [v] for k, v in dict(call.get("arguments") or {}).items()}
    for name, values in dict(call.get("also_accept") or {}).items():
        arguments.setdefault(name, []).extend(values)
    for name in call.get("may_omit") or ():
        arguments.setdefault(name, []).append("")
    return ExpectedToolCall(
        name=call["name"], arguments=arguments, optional=bool(call.get("optional", False))
    )


def _messages(value: str | list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    if isinstance(value, str):
        return ({"role": "user", "content": value},)
    return tuple(dict(m) for m in value)


def item_from_user(data: dict[str, Any]) -> DatasetItem:
    """The item model of one user item; ``data`` must have passed ``schema_problems``."""
    return DatasetItem(
        item_id=data["item_id"],
        input_messages=_messages(data["input"]),
        reference_answer=data.get("reference_answer"),
        expected_tool_calls=tuple(_expected(c) for c in data.get("expected_tool_calls") or ()),
        alternative_trajectories=tuple(
            tuple(_expected(c) for c in trajectory)
            for trajectory in data.get("alternative_trajectories") or ()
        ),
        ordering=tuple(
            OrderingConstraint(o["before"], o["after"]) for o in data.get("ordering") or ()
        ),
        forbidden_calls=tuple(
            ForbiddenCall(f["name"], dict(f.get("arguments") or {}), f.get("reason", ""))
            for f in data.get("forbidden_calls") or ()
        ),
        required_outputs=tuple(data.get("required_outputs") or ()),
        required_entities=tuple(data.get("required_entities") or ()),
        canaries=tuple(data.get("canaries") or ()),
        expected_end_state=data.get("expected_end_state"),
        assertions=tuple(data.get("assertions") or ()),
        tool_schemas=tuple(dict(s) for s in data.get("tool_schemas") or ()),
        slices=dict(data.get("slices") or {}),
        provenance=dict(data.get("metadata") or {}),
        conversation=(
            ConversationScript.from_dict(data["conversation"]) if "conversation" in data else None
        ),
    )
