"""Type stub of the native column builder (``_columns.c``)."""

from typing import Any

def plain_columns(rows: list[Any], specs: tuple[tuple[int, bool], ...]) -> list[Any] | None:
    """The Arrow buffers of the rows' plain columns; None when a value is not plain.

    Per spec ``(row index, is_string)``: ``(nulls, validity, offsets, data)`` for a string
    column, ``(nulls, validity, values)`` for an int64 one (``validity`` None without nulls).
    """
