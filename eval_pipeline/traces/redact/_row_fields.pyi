"""Type stub of the native pass of ``unseen_fields`` (``_row_fields.c``)."""

from typing import Any

def unseen(
    rows: list[tuple[Any, ...]],
    columns: tuple[int, ...],
    clean: set[str],
    attributes: int,
    events: int,
    links: int,
    resource: int,
) -> tuple[list[list[str]], list[str], list[Any]] | None:
    """``unseen_fields.unseen_reference``, in one C pass."""
