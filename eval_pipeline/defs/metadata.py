"""Turn plain stage summaries into typed Dagster metadata (counts, Markdown tables, JSON)."""

from collections.abc import Mapping
from typing import Any

import dagster as dg


def typed_metadata(values: Mapping[str, Any]) -> dict[str, dg.MetadataValue]:
    """Typed metadata: ints, floats, text, Markdown (keys ending ``_md``) and JSON."""
    typed: dict[str, dg.MetadataValue] = {}
    for key, value in values.items():
        if value is None:
            typed[key] = dg.MetadataValue.text("none")
        elif isinstance(value, bool):
            typed[key] = dg.MetadataValue.bool(value)
        elif isinstance(value, int):
            typed[key] = dg.MetadataValue.int(value)
        elif isinstance(value, float):
            typed[key] = dg.MetadataValue.float(value)
        elif isinstance(value, str) and key.endswith("_md"):
            typed[key.removesuffix("_md")] = dg.MetadataValue.md(value)
        elif isinstance(value, str):
            typed[key] = dg.MetadataValue.text(value)
        else:
            typed[key] = dg.MetadataValue.json(value)
    return typed
