"""Tool schemas checked as what they are: JSON Schema function definitions, and calls against them.

Two rules of dataset validation (``validation.validate_dataset``) that are not column
expectations: every tool schema names its tool and its ``parameters`` is a valid JSON Schema
of an object (checked with ``jsonschema``'s meta-schema, Draft 2020-12), and every argument an
expected or forbidden call names is a parameter of its tool, where the tool declares its
parameters (``properties``) and does not allow others. A call naming a tool with no schema is
the ``expected tools exist in the tool schema`` expectation's business, not this module's.
BFCL writes Python's type names (``float``, ``tuple``, ``dict``, ``any``); they are read as the
JSON Schema types they stand for, as the argument checker (``scoring.argument_values``) does.
"""

from collections.abc import Iterable, Mapping
from typing import Any

from eval_pipeline.datasets.artefact import Dataset, tool_schema_name
from eval_pipeline.datasets.item import DatasetItem

PYTHON_TYPES = {"float": "number", "tuple": "array", "dict": "object"}
"""BFCL's Python type names and the JSON Schema type each stands for (``any``: no type)."""
SCHEMA_RULE = "tool schemas are valid JSON Schema function definitions"
ARGUMENT_RULE = "arguments name parameters of the tool"


def _function(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = schema.get("function")
    return inner if isinstance(inner, Mapping) else schema


def _json_schema_types(value: Any) -> Any:
    """``value`` with BFCL's Python type names replaced by JSON Schema's (a copy)."""
    if isinstance(value, list):
        return [_json_schema_types(v) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: _json_schema_types(v) for k, v in value.items()}
    declared = out.get("type")
    if declared == "any":
        del out["type"]
    elif isinstance(declared, str):
        out["type"] = PYTHON_TYPES.get(declared, declared)
    return out


def schema_problems(schema: Any) -> list[str]:
    """What is wrong with one tool schema (empty when nothing is)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, Mapping):
        return [f"a tool schema must be an object, got {type(schema).__name__}"]
    name = tool_schema_name(schema)
    if name is None:
        return ["a tool schema has no name"]
    parameters = _json_schema_types(_function(schema).get("parameters"))
    if parameters is None:
        return []
    if not isinstance(parameters, Mapping):
        return [f"{name}: parameters must be a JSON Schema object"]
    try:
        Draft202012Validator.check_schema(parameters)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        return [f"{name}: parameters{'/' + where if where else ''}: {exc.message}"]
    if parameters.get("type", "object") != "object":
        return [f"{name}: parameters must describe an object, not {parameters.get('type')!r}"]
    return []


def _declared(schemas: Iterable[Mapping[str, Any]]) -> dict[str, frozenset[str] | None]:
    """Tool name -> its declared parameter names (None: any argument is allowed)."""
    declared: dict[str, frozenset[str] | None] = {}
    for schema in schemas:
        name = tool_schema_name(schema) if isinstance(schema, Mapping) else None
        if name is None or name in declared:
            continue
        parameters = _function(schema).get("parameters")
        if not isinstance(parameters, Mapping):
            declared[name] = None
            continue
        properties = parameters.get("properties")
        if isinstance(properties, Mapping) and parameters.get("additionalProperties") is not True:
            declared[name] = frozenset(str(p) for p in properties)
        else:
            declared[name] = None
    return declared


def item_tool_problems(
    item: DatasetItem, shared: tuple[dict[str, Any], ...]
) -> dict[str, list[str]]:
    """``{rule: [detail, ...]}`` for one item, its own schemas taking precedence over ``shared``."""
    problems: dict[str, list[str]] = {}
    for schema in item.tool_schemas:
        problems.setdefault(SCHEMA_RULE, []).extend(schema_problems(schema))
    declared = _declared((*item.tool_schemas, *shared))
    calls = [(c.name, c.arguments) for t in item.trajectories for c in t]
    calls += [(f.name, f.arguments) for f in item.forbidden_calls]
    for name, arguments in calls:
        allowed = declared.get(name)
        if allowed is None:
            continue
        for argument in sorted(set(arguments) - allowed):
            problems.setdefault(ARGUMENT_RULE, []).append(
                f"{name} has no parameter {argument!r} (it has: {', '.join(sorted(allowed))})"
            )
    return {rule: details for rule, details in problems.items() if details}


def dataset_schema_problems(dataset: Dataset) -> list[str]:
    """What is wrong with the dataset-wide tool schemas (empty when nothing is)."""
    return [p for schema in dataset.tool_schemas for p in schema_problems(schema)]
