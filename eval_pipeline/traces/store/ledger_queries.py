"""How the ledger asks the database about many traces or keys at once.

SQLite takes a batch of ids or keys as one JSON document that it unpacks itself
(``json_each``): no parameter is bound per id and no row is rendered and parsed again. Other
databases get chunked ``IN`` lists and Core's multi-row inserts.
"""

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import TypeVar

import orjson
from sqlalchemy import Connection, String, bindparam, column, func, select
from sqlalchemy.sql.elements import ColumnElement

from eval_pipeline.traces.store.ledger_tables import SPAN_KEYS

_CHUNK = 500
"""Ids per ``IN`` list (well under SQLite's and PostgreSQL's parameter limits)."""

T = TypeVar("T")


def chunks(items: Iterable[T], size: int = _CHUNK) -> Iterator[list[T]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def trace_filters(
    connection: Connection, trace_ids: Iterable[str]
) -> Iterator[ColumnElement[bool]]:
    """``trace_id IN (...)`` conditions covering ``trace_ids``, one query each.

    SQLite takes the ids as one JSON array it unpacks itself (``json_each``), a fifth of the
    cost of binding and planning chunks of parameters; other databases get chunked ``IN`` lists.
    """
    wanted = set(trace_ids)
    if not wanted:
        return
    if connection.dialect.name == "sqlite":
        ids = select(column("value", String)).select_from(
            func.json_each(bindparam("trace_ids", orjson.dumps(list(wanted)).decode()))
        )
        yield SPAN_KEYS.c.trace_id.in_(ids.scalar_subquery())
        return
    for chunk in chunks(wanted):
        yield SPAN_KEYS.c.trace_id.in_(chunk)


INSERT_KEYS = (
    f"INSERT INTO {SPAN_KEYS.name} (store, build, trace_id, span_id, is_root) "
    "SELECT ?, ?, trace.key, span.value, kind.key = 0 "
    "FROM json_each(?) AS trace, json_each(trace.value) AS kind, json_each(kind.value) AS span"
)
"""SQLite: insert the keys of ``keys_document``: every value is a ``json_each`` column, so no
row's JSON is rendered and parsed again (a fifth less work than a ``[trace, span, root]``
array per key read back with ``json_extract``)."""


def keys_document(keys: Sequence[tuple[str, str, bool]]) -> str:
    """``{trace id: [[root span ids], [other span ids]]}`` of (trace id, span id, is root) keys.

    Every key appears once per time it is given (a repeated key still fails the constraint).
    """
    traces: dict[str, tuple[list[str], list[str]]] = {}
    for trace_id, span_id, is_root in keys:
        spans = traces.get(trace_id)
        if spans is None:
            spans = traces[trace_id] = ([], [])
        spans[0 if is_root else 1].append(span_id)
    return orjson.dumps(traces).decode()


BY_TRACE = (
    f"FROM json_each(?) AS wanted CROSS JOIN {SPAN_KEYS.name} AS k "
    "ON k.store = ? AND k.trace_id = wanted.value WHERE "
)
STORED_KEYS = f"SELECT k.trace_id, k.span_id {BY_TRACE} k.build = ?"
ROOTS = f"SELECT k.trace_id, k.build {BY_TRACE} k.is_root IS 1"
KEYS_ANYWHERE = (
    "SELECT k.trace_id, k.span_id, k.build, k.is_root FROM json_each(?) AS wanted "
    f"CROSS JOIN {SPAN_KEYS.name} AS k ON k.store = ? AND k.trace_id = wanted.value"
)
"""SQLite lookups by trace, the ids walked in order and each looked up in the key (``CROSS
JOIN`` fixes that plan; an ``IN`` list of them is first copied into a temporary b-tree, a
third more work per id)."""


def by_trace(
    connection: Connection, query: str, trace_ids: Iterable[str], parameters: tuple[str, ...]
) -> list[tuple[str, str]]:
    """The rows of a ``BY_TRACE`` query (SQLite) for these traces."""
    wanted = set(trace_ids)
    if not wanted:
        return []
    ids = orjson.dumps(list(wanted)).decode()
    result = connection.exec_driver_sql(query, (ids, *parameters))
    return [(first, second) for first, second in result]
