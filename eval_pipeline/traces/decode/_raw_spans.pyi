"""Raw ``Span`` objects from the native OTLP reader's tuples (see ``wire_spans``)."""

from typing import Any

def raw_spans(
    spans: list[Any],
    resource: dict[str, Any],
    scope: str | None,
    scope_url: str | None,
    resource_url: str | None,
    defaults: dict[str, Any],
    span_type: type,
) -> list[Any] | None: ...
