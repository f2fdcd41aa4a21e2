"""What the store can hold: checks that turn a row it cannot hold into that span's error.

Hostile or broken input must never crash ingest nor lose the good spans beside it.
The decoders name most bad fields themselves; this module catches what only shows at the store:
integers beyond int64 (times, token counts), strings that are not UTF-8 (lone surrogates),
values of the wrong type (a numeric scope name), eval-context values the store's readers rely
on (``eval_context.problem``) and build names the file system cannot hold.

``cheap_problem`` runs on every row (a few comparisons); ``unstorable`` is the thorough check,
converting the batch column by column and halving a column that fails until its bad rows are
found; it runs only on a batch whose table could not be built, so the happy path pays nothing
for it, and a bad row costs its batch a small constant, not a re-check of every row.
"""

from collections.abc import Sequence
from functools import partial
from itertools import chain
from operator import is_not, itemgetter
from typing import Any
from urllib.parse import quote

import pyarrow as pa

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.decode.errors import DecodeError, FieldError
from eval_pipeline.traces.store.span_table import (
    ATTRIBUTES,
    ROW_FIELDS,
    SPAN_ID,
    TRACE_ID,
    Row,
    column_array,
)

INT64_MAX = 2**63 - 1
MAX_NAME_BYTES = 255
"""The longest file name the common file systems take (ext4, APFS, NTFS)."""

_INTS = tuple(
    (ROW_FIELDS.index(name), name)
    for name in ("start_time_unix_nano", "end_time_unix_nano", "input_tokens", "output_tokens")
)
BAD_INPUT = (FieldError, RecursionError)
"""What decoding or normalising a hostile span raises: a bad field the decoders name, or a
value nested deeper than Python can walk. Anything else is a bug: it is not a rejected span but
propagates out of ``ingest`` as an internal error (CLI exit 3, receiver 500)."""
STORE_FAILURES = (ValueError, TypeError, OverflowError, RecursionError, pa.ArrowException)
"""What building a table raises for a value it cannot hold (UnicodeError is a ValueError)."""


def build_problem(build: object) -> str | None:
    """Why ``build`` cannot name a store partition (None when it can)."""
    if type(build) is not str or not build:
        return f"a build name must be a non-empty string, got {build!r:.80}"
    try:
        folder = f"build={quote(build, safe='')}"
    except UnicodeError:
        return "a build name must be valid Unicode text"
    if len(folder) > MAX_NAME_BYTES:
        return (
            f"build name of {len(build)} characters is too long for the file system "
            f"(its folder name is limited to {MAX_NAME_BYTES} bytes)"
        )
    return None


_INT_COLUMNS = tuple(itemgetter(index) for index, _ in _INTS)
_PLAIN_INT_TYPES = frozenset({int, type(None)})
_PRESENT = partial(is_not, None)
_EVAL_CONTEXT_KEYS = (eval_context.RUN_INDEX, eval_context.BUILD_ID)


def all_storable(rows: Sequence[Row]) -> bool:
    """True when ``cheap_problem`` finds nothing in any of ``rows`` (False: look row by row).

    The same checks column by column: each integer column holds only ints (or None) within
    int64, and no row carries an eval-context value to check.
    """
    for column in _INT_COLUMNS:
        values = list(map(column, rows))
        if not _PLAIN_INT_TYPES.issuperset(map(type, values)):
            return False
        present = list(filter(_PRESENT, values))
        if present and (min(present) < -INT64_MAX - 1 or max(present) > INT64_MAX):
            return False
    keys = set(chain.from_iterable(map(itemgetter(ATTRIBUTES), rows)))
    return keys.isdisjoint(_EVAL_CONTEXT_KEYS)


def cheap_problem(row: Row) -> tuple[str, str] | None:
    """``(field, message)`` for what every row is checked for (None when none applies)."""
    for index, name in _INTS:
        value = row[index]
        if value is not None and not -INT64_MAX - 1 <= value <= INT64_MAX:
            return name, f"{value} is outside the 64-bit integer range"
    return eval_context.problem(row[ATTRIBUTES])


def unstorable(rows: Sequence[Row]) -> dict[int, tuple[str, str]]:
    """Row number -> ``(field, message)`` for each row holding a value the store cannot hold.

    Runs only on a batch whose table could not be built. Each column is converted on its own
    (``span_table.column_array``, the store's own conversion, vectorised by Arrow); a column
    that fails is halved until the failing values are single rows. One bad value costs its
    column about two more conversions, not a table per row: a batch with a bad row costs a
    small constant more than one without it, whatever its size. A row is named for the first
    column (in ``ROW_FIELDS`` order) it fails in.
    """
    found: dict[int, tuple[str, str]] = {}
    if not rows:
        return found
    for name, values in zip(ROW_FIELDS, zip(*rows, strict=True), strict=True):
        _bisect(name, values, 0, found)
    return found


def _bisect(
    name: str, values: Sequence[Any], offset: int, found: dict[int, tuple[str, str]]
) -> None:
    """Record in ``found`` (row number -> problem) each of ``values`` column ``name`` refuses."""
    try:
        column_array(name, values)
        return
    except STORE_FAILURES as exc:
        if len(values) == 1:
            found.setdefault(
                offset, (name, f"cannot be stored: {type(exc).__name__}: {exc!s:.200}")
            )
            return
    middle = len(values) // 2
    _bisect(name, values[:middle], offset, found)
    _bisect(name, values[middle:], offset + middle, found)


def rejection(row: Row, source: str, problem: tuple[str, str]) -> DecodeError:
    """The error that rejects ``row`` for ``problem``."""
    span_id, trace_id = row[SPAN_ID], row[TRACE_ID]
    return DecodeError(
        source,
        problem[0],
        problem[1],
        span_id=span_id if type(span_id) is str else "?",
        trace_id=trace_id if type(trace_id) is str else None,
    )
