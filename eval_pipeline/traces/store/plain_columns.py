"""The store's plain columns (str, int64) straight from store rows to Arrow (``_columns``).

``pa.array`` needs the rows turned into columns first (a ``zip`` over every field), then one
conversion per column. The native builder reads every plain column of every row once,
straight into Arrow's buffers. It takes only plain values (exactly str, int or None; UTF-8
text; ints within int64) and declines anything else, leaving the columns to ``pa.array``,
which then builds them, or raises its own error, as before: the table is always
``pa.array``'s.
"""

from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

_native: Callable[[list[Any], tuple[tuple[int, bool], ...]], list[Any] | None] | None
try:
    from eval_pipeline.traces.store._columns import plain_columns as _native
except ImportError:  # not built (``setup.py build_ext``): every column through ``pa.array``
    _native = None

Specs = tuple[tuple[int, bool], ...]
"""``(row index, is a string column)`` of each plain column (else an int64 one)."""


def plain_arrays(
    rows: Sequence[tuple[Any, ...]], specs: Specs, names: Sequence[str]
) -> dict[str, pa.Array] | None:
    """The plain columns' arrays by name (``names[row index]``); None: not plain, or no rows.

    The arrays equal ``pa.array``'s of the same values (``pa.string()``, ``pa.int64()``).
    """
    if _native is None or not rows:
        return None
    built = _native(rows if type(rows) is list else list(rows), specs)
    if built is None:
        return None
    count = len(rows)
    arrays: dict[str, pa.Array] = {}
    for (index, is_string), buffers in zip(specs, built, strict=True):
        nulls, validity, *rest = buffers
        arrays[names[index]] = pa.Array.from_buffers(
            pa.string() if is_string else pa.int64(),
            count,
            [None if validity is None else pa.py_buffer(validity), *map(pa.py_buffer, rest)],
            null_count=nulls,
        )
    return arrays


def plain_ints(rows: Sequence[tuple[Any, ...]], indexes: tuple[int, ...]) -> bool:
    """True when these columns hold only ints (or None) within int64, checked natively.

    False says nothing (a value is off, or the extension is not built): the caller checks
    the columns itself.
    """
    if _native is None or type(rows) is not list:
        return False
    return _native(rows, tuple((index, False) for index in indexes)) is not None
