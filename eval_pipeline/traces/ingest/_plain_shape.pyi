"""Type stub of the native completeness pass (``_plain_shape.c``)."""

from typing import Any

def pending(
    rows: list[tuple[Any, ...]],
    known: dict[str, list[dict[str, Any]]] | None,
    fields: tuple[int, ...],
    consts: tuple[Any, ...],
) -> list[tuple[str, list[tuple[Any, ...]], tuple[tuple[str, str, str], ...] | None]] | None:
    """(trace id, rows) of each trace of ``rows`` not shown complete, in first-seen order.

    None when the rows are not a list of tuples with str trace ids: the caller groups them.
    """
