"""Type stub of the native column builder (``_columns.c``)."""

from collections.abc import Callable
from typing import Any

def plain_columns(rows: list[Any], specs: tuple[tuple[int, bool], ...]) -> list[Any] | None:
    """The Arrow buffers of the rows' plain columns; None when a value is not plain.

    Per spec ``(row index, is_string)``: ``(nulls, validity, offsets, data)`` for a string
    column, ``(nulls, validity, values)`` for an int64 one (``validity`` None without nulls).
    """

def row_columns(
    rows: list[Any],
    specs: tuple[tuple[int, int, Callable[[Any], str | None] | None], ...],
    message_type: type,
) -> list[Any] | None:
    """``plain_columns`` for plain and encoded columns (``plain_columns.py``'s kinds).

    Per spec ``(row index, kind | flags, Python encoder or None)``; None when declined.
    """
