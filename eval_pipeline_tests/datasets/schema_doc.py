"""The field tables of ``docs/datasets.md``, rendered from ``datasets/item.schema.json``.

``test_schema_doc`` checks that every line rendered here is in the page, so the page cannot
drift from the schema; ``python -m eval_pipeline_tests.datasets.schema_doc`` prints the tables
to paste after a schema change.
"""

from typing import Any

from eval_pipeline.datasets.user_items import item_schema

HEADER = ("| field | type | required | what it is |", "|---|---|---|---|")
TABLES = {
    "item": None,
    "tool call": "tool_call",
    "ordering": "ordering",
    "forbidden call": "forbidden_call",
    "tool schema": "tool_schema",
    "message": "message",
    "conversation": "conversation",
    "reply": "reply",
}


def type_of(spec: dict[str, Any]) -> str:
    """A short, human type for one property schema."""
    if "$ref" in spec:
        return str(spec["$ref"]).rsplit("/", 1)[-1].replace("_", " ")
    if "oneOf" in spec:
        return " or ".join(type_of(option) for option in spec["oneOf"])
    if "enum" in spec:
        return " \\| ".join(f"`{v}`" for v in spec["enum"])
    kind = spec.get("type")
    if kind == "array":
        return f"list of {type_of(spec.get('items', {}))}"
    if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
        return f"object of {type_of(spec['additionalProperties'])}"
    if kind == "string":
        return "string" if not spec.get("minLength") else "text"
    return str(kind) if kind else "any JSON value"


def table(definition: str | None) -> list[str]:
    """The rows of one field table (the item's, or a ``$defs`` entry's)."""
    schema = item_schema()
    node = schema if definition is None else schema["$defs"][definition]
    required = set(node.get("required", ()))
    rows = list(HEADER)
    for name, spec in node["properties"].items():
        needed = "yes" if name in required else "no"
        rows.append(f"| `{name}` | {type_of(spec)} | {needed} | {spec['description']} |")
    return rows


def main() -> None:
    """Print every table, titled, for the page."""
    for title, definition in TABLES.items():
        print(f"### {title}\n")
        print("\n".join(table(definition)) + "\n")


if __name__ == "__main__":
    main()
