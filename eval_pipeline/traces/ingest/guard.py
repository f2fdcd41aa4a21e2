"""What the store can hold: checks that turn a row it cannot hold into that span's error.

Hostile or broken input must never crash ingest nor lose the good spans beside it.
The decoders name most bad fields themselves; this module catches what only shows at the store:
integers beyond int64 (times, token counts), strings that are not UTF-8 (lone surrogates),
values of the wrong type (a numeric scope name), eval-context values the store's readers rely
on (``eval_context.problem``) and build names the file system cannot hold.

``cheap_problem`` runs on every row (a few comparisons); ``row_problem`` is the thorough check,
building the row's Arrow columns one by one, and runs only on the rows of a batch whose table
could not be built, so the happy path pays nothing for it.
"""

from collections.abc import Sequence
from functools import partial
from itertools import chain
from operator import is_not, itemgetter
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
    rows_table,
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


def row_problem(row: Row) -> tuple[str, str] | None:
    """``(field, message)`` for the first column of ``row`` the store cannot hold."""
    found = cheap_problem(row)
    if found is not None:
        return found
    for index, name in enumerate(ROW_FIELDS):
        # The row with every other column emptied: only this column's value is tried.
        probe = tuple(
            value if i == index or i in (TRACE_ID, SPAN_ID) else None for i, value in enumerate(row)
        )
        probe = _with_defaults(probe)
        try:
            rows_table([probe], ["probe"], None)
        except STORE_FAILURES as exc:
            return name, f"cannot be stored: {type(exc).__name__}: {str(exc)[:200]}"
    try:
        rows_table([row], ["probe"], None)
    except STORE_FAILURES as exc:
        return "span", f"cannot be stored: {type(exc).__name__}: {str(exc)[:200]}"
    return None


_EMPTY: dict[str, object] = {
    "input_messages": (),
    "output_messages": (),
    "attributes": {},
    "events": (),
}
_RESOURCE = ROW_FIELDS.index("resource")


def _with_defaults(probe: Row) -> Row:
    values = list(probe)
    for name, empty in _EMPTY.items():
        index = ROW_FIELDS.index(name)
        if values[index] is None:
            values[index] = empty
    if values[_RESOURCE] is None:
        values[_RESOURCE] = {}
    return tuple(values)


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
