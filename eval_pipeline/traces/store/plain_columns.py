"""The store's columns straight from store rows to Arrow buffers (``_columns``).

``pa.array`` needs the rows turned into columns first (a ``zip`` over every field), then one
conversion per column, and the JSON columns need a list of texts each. The native builder
reads every column of every row once, straight into Arrow's buffers:

- plain columns (str, int64) take only plain values (exactly str, int or None; UTF-8 text;
  ints within int64);
- encoded columns (``ENCODED_*`` kinds) write JSON text natively where the text is plain
  (``_json_writer.h``: exactly json_text.dumps's) and hand any other value to the column's
  Python encoder, which returns its text (or None for a null).

Anything it does not take (a value off the plain shape, an encoder that raises or returns
something else) declines the whole call, leaving the columns to the Python route, which then
builds them, or raises its own error, as before: the table is always the Python route's.
"""

from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

_native: Any
try:
    from eval_pipeline.traces.store import _columns as _native
except ImportError:  # not built (``setup.py build_ext``): every column through ``pa.array``
    _native = None

Specs = tuple[tuple[int, bool], ...]
"""``(row index, is a string column)`` of each plain column (else an int64 one)."""

INT64, TEXT, JSON, MESSAGES, EMPTY = range(5)
"""Column kinds: int or None; str or None; a value as JSON text; a tuple of ``Message`` as
``span_table._messages_text`` spells it (``()`` as ``[]``); ``()`` as ``[]``, else the encoder."""
SHARED, NULLABLE, PASS_TEXT = 0x10, 0x20, 0x40
"""Kind flags: encode each distinct object once (by identity); None is a null (JSON); a str
is the column's text already (MESSAGES)."""
RowSpecs = tuple[tuple[int, int, Callable[[Any], str | None] | None], ...]
"""``(row index, kind | flags, Python encoder or None)`` of each column."""


def _arrays(built: list[Any], types: Sequence[pa.DataType], count: int) -> list[pa.Array]:
    arrays = []
    for kind, buffers in zip(types, built, strict=True):
        nulls, validity, *rest = buffers
        arrays.append(
            pa.Array.from_buffers(
                kind,
                count,
                [None if validity is None else pa.py_buffer(validity), *map(pa.py_buffer, rest)],
                null_count=nulls,
            )
        )
    return arrays


def plain_arrays(
    rows: Sequence[tuple[Any, ...]], specs: Specs, names: Sequence[str]
) -> dict[str, pa.Array] | None:
    """The plain columns' arrays by name (``names[row index]``); None: not plain, or no rows.

    The arrays equal ``pa.array``'s of the same values (``pa.string()``, ``pa.int64()``).
    """
    if _native is None or not rows:
        return None
    built = _native.plain_columns(rows if type(rows) is list else list(rows), specs)
    if built is None:
        return None
    types = [pa.string() if is_string else pa.int64() for _, is_string in specs]
    arrays = _arrays(built, types, len(rows))
    return {names[index]: array for (index, _), array in zip(specs, arrays, strict=True)}


def row_arrays(
    rows: Sequence[tuple[Any, ...]], specs: RowSpecs, message_type: type
) -> list[pa.Array] | None:
    """One array per spec (int64 for ``INT64``, else string); None: declined, or no rows.

    Each array equals ``pa.array`` of the values, or of their texts by the column's encoder.
    """
    if _native is None or not rows:
        return None
    built = _native.row_columns(rows if type(rows) is list else list(rows), specs, message_type)
    if built is None:
        return None
    types = [pa.int64() if kind == INT64 else pa.string() for _, kind, _ in specs]
    return _arrays(built, types, len(rows))


def plain_ints(rows: Sequence[tuple[Any, ...]], indexes: tuple[int, ...]) -> bool:
    """True when these columns hold only ints (or None) within int64, checked natively.

    False says nothing (a value is off, or the extension is not built): the caller checks
    the columns itself.
    """
    if _native is None or type(rows) is not list:
        return False
    return _native.plain_columns(rows, tuple((index, False) for index in indexes)) is not None
