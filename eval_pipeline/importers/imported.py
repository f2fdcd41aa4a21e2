"""What an importer returns: items plus the tool schemas and provenance of their source."""

from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.datasets.artefact import tool_schema_name
from eval_pipeline.datasets.item import DatasetItem


@dataclass(frozen=True)
class ImportedItems:
    """Items read from one or more source files, before they become a dataset version."""

    items: tuple[DatasetItem, ...]
    tool_schemas: tuple[dict[str, Any], ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """Number of items."""
        return len(self.items)


def merge(parts: list[ImportedItems]) -> ImportedItems:
    """Concatenate imports; tool schemas are de-duplicated by name (the first one wins)."""
    items = tuple(item for part in parts for item in part.items)
    schemas: dict[str, dict[str, Any]] = {}
    for part in parts:
        for schema in part.tool_schemas:
            name = tool_schema_name(schema)
            if name and name not in schemas:
                schemas[name] = schema
    sources = [part.provenance for part in parts]
    provenance = sources[0] if len(sources) == 1 else {"sources": sources}
    return ImportedItems(items, tuple(schemas.values()), provenance)


def openai_function(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool schema in flat OpenAI function form: ``{"name", "description", "parameters"}``."""
    wrapped = schema.get("function")
    inner: dict[str, Any] = wrapped if isinstance(wrapped, dict) else schema
    parameters = dict(inner.get("parameters") or {"type": "object", "properties": {}})
    if parameters.get("type") == "dict":  # BFCL writes Python's name for a JSON object
        parameters["type"] = "object"
    return {
        "name": str(inner["name"]),
        "description": str(inner.get("description") or ""),
        "parameters": parameters,
    }
