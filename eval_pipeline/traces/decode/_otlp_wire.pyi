"""Native OTLP protobuf decoding for the ingestion fast path (see ``wire_spans``)."""

from typing import Any

def decode(
    payload: bytes,
    limit: int,
    kind_names: tuple[Any, ...],
    status_names: tuple[Any, ...],
    lifted_keys: frozenset[str] | None,
    declined_keys: frozenset[str],
) -> list[Any] | None: ...
