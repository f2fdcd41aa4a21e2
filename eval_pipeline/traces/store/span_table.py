"""Spans <-> Arrow tables: the column layout of the span store.

Scalar fields are columns; structured fields (arguments, results, messages, attributes,
events, resource, links) are JSON text, so every span round-trips exactly (``Span`` equality
holds after a write and a read).

Columns added after the first layout (``ADDED_COLUMNS``: links, trace state, schema URLs) sit
after ``convention_version``; a part written before them reads them as empty (``from_table``).
A row producer (``ingest.rows``) fills them in ``ROW_FIELDS`` order like the rest.
"""

import json
import operator
from collections.abc import Callable, Sequence
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

import pyarrow as pa

from eval_pipeline.traces.model import Message, Span, SpanEvent, SpanLink
from eval_pipeline.traces.normalise.messages import messages_from_json
from eval_pipeline.traces.store.json_text import dumps, dumps_many

SCHEMA = pa.schema(
    [
        ("trace_id", pa.string()),
        ("span_id", pa.string()),
        ("parent_span_id", pa.string()),
        ("name", pa.string()),
        ("kind", pa.string()),
        ("start_time_unix_nano", pa.int64()),
        ("end_time_unix_nano", pa.int64()),
        ("status_code", pa.string()),
        ("status_message", pa.string()),
        ("operation", pa.string()),
        ("agent_name", pa.string()),
        ("tool_name", pa.string()),
        ("tool_call_id", pa.string()),
        ("tool_arguments", pa.string()),
        ("tool_result", pa.string()),
        ("model", pa.string()),
        ("provider", pa.string()),
        ("input_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("conversation_id", pa.string()),
        ("input_messages", pa.string()),
        ("output_messages", pa.string()),
        ("attributes", pa.string()),
        ("events", pa.string()),
        ("resource", pa.string()),
        ("scope_name", pa.string()),
        ("dialect", pa.string()),
        ("convention_version", pa.string()),
        # Added after the first layout (``ADDED_COLUMNS``): OTLP links as JSON text
        # ``[[trace_id, span_id, trace_state, attributes], ...]``, the span's W3C trace state,
        # and the scope's and the resource's schema URLs.
        ("links", pa.string()),
        ("trace_state", pa.string()),
        ("schema_url", pa.string()),
        ("resource_schema_url", pa.string()),
        ("build", pa.string()),
        ("day", pa.string()),
    ]
)

ROW_FIELDS = tuple(name for name in SCHEMA.names if name not in ("build", "day"))
"""The ``Span`` fields of a store row, in column order."""
TRACE_ID, SPAN_ID, PARENT_SPAN_ID, ATTRIBUTES = map(
    ROW_FIELDS.index, ("trace_id", "span_id", "parent_span_id", "attributes")
)
_JSON_FIELDS = frozenset({"tool_arguments", "tool_result"})
ADDED_COLUMNS: dict[str, Any] = {
    "links": (),
    "trace_state": None,
    "schema_url": None,
    "resource_schema_url": None,
}
"""Columns newer than the first layout -> the ``Span`` value of a part written without them."""

Row = tuple[Any, ...]
"""A span's fields in ``ROW_FIELDS`` order, values as on the ``Span`` (not yet JSON text)."""

_ROW_OF_SPAN = operator.attrgetter(*ROW_FIELDS)


def span_row(span: Span) -> Row:
    """The store row of a span."""
    return _ROW_OF_SPAN(span)  # type: ignore[no-any-return]


def row_span(row: Row) -> Span:
    """The span a store row holds: the inverse of ``span_row``."""
    return Span(**dict(zip(ROW_FIELDS, row, strict=True)))


def _json(value: Any) -> str | None:
    return None if value is None else dumps(value)


def _events(events: tuple[SpanEvent, ...]) -> str:
    if not events:
        return "[]"
    return dumps([[e.name, e.time_unix_nano, e.attributes] for e in events])


def _links(links: tuple[SpanLink, ...]) -> str:
    return dumps([[k.trace_id, k.span_id, k.trace_state, k.attributes] for k in links])


def _message_text(msg: Message) -> str:
    """``dumps`` of the message's ``messages_to_json`` form, without building that form."""
    role = msg.role
    text = (
        '{"role":'
        + (encode_basestring(role) if type(role) is str else dumps(role))
        + ',"parts":'
        + dumps(msg.parts)
    )
    if msg.name is not None:
        text += ',"name":' + dumps(msg.name)
    if msg.finish_reason is not None:
        text += ',"finish_reason":' + dumps(msg.finish_reason)
    return text + "}"


def _messages_text(items: tuple[Message, ...]) -> str:
    return "[" + ",".join(map(_message_text, items)) + "]"


def _history_text(items: tuple[Message, ...]) -> str:
    return _messages_text(items) if items else "[]"


def _shared_texts(values: Sequence[Any], encode: Callable[[Any], str]) -> list[str]:
    """``[encode(v) for v in values]``, each distinct object encoded once.

    For values many spans share as one object (a run's history on each of its inference
    spans, a request's resource on all its spans). Objects are told apart by identity: every
    one is alive in ``values``, so an id names one object here.
    """
    ids = list(map(id, values))
    texts = {key: encode(value) for key, value in dict(zip(ids, values, strict=True)).items()}
    return list(map(texts.__getitem__, ids))


def to_table(spans: Sequence[Span], builds: Sequence[str], day: str | None) -> pa.Table:
    """Spans (with the build of each) -> one Arrow table in ``SCHEMA``."""
    return rows_table(list(map(span_row, spans)), builds, day)


def _events_text(value: tuple[SpanEvent, ...]) -> str:
    return _events(value) if value else "[]"


def _links_text(value: tuple[SpanLink, ...]) -> str:
    return _links(value) if value else "[]"


def _repeated(values: Sequence[str | None]) -> pa.Array:
    """``pa.array(values, pa.string())``, without converting each value when all are one."""
    first = values[0] if values else None
    if first is not None and values.count(first) == len(values):
        return pa.repeat(pa.scalar(first, pa.string()), len(values))
    return pa.array(values, type=pa.string())


def rows_table(rows: Sequence[Row], builds: Sequence[str], day: str | None) -> pa.Table:
    """Store rows (with the build of each) -> one Arrow table in ``SCHEMA``."""
    arrays = _python_arrays(rows)
    arrays.append(_repeated(builds))
    arrays.append(_repeated([day] * len(rows)))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def _python_arrays(rows: Sequence[Row]) -> list[pa.Array]:
    """The row columns' arrays, each value encoded to its stored text."""
    # ``zip`` turns the rows into columns in one pass.
    columns = dict(zip(ROW_FIELDS, zip(*rows, strict=True), strict=True)) if rows else {}
    return [column_array(name, columns.get(name, ())) for name in ROW_FIELDS]


def column_array(name: str, values: Sequence[Any]) -> pa.Array:
    """One row column (``ROW_FIELDS`` name, values in row order) as its stored Arrow array.

    Raises what encoding or converting a value the column cannot hold raises (``TypeError``,
    ``ValueError``, ``pa.ArrowException``...): ``ingest.guard.unstorable`` calls it on parts of
    a column to find the rows at fault.
    """
    if name in _JSON_FIELDS:
        values = [None if v is None else dumps(v) for v in values]
    elif name == "input_messages":
        values = _shared_texts(values, _history_text)
    elif name == "output_messages":
        values = list(map(_history_text, values))
    elif name == "attributes":
        values = dumps_many(values)
    elif name == "events":
        values = list(map(_events_text, values))
    elif name == "links":
        values = list(map(_links_text, values))
    elif name == "resource":
        values = _shared_texts(values, dumps)
    return pa.array(values, type=SCHEMA.field(name).type)


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _messages(text: str) -> tuple[Message, ...]:
    return messages_from_json(json.loads(text))


def _span_events(text: str) -> tuple[SpanEvent, ...]:
    return tuple(SpanEvent(n, t, a) for n, t, a in json.loads(text))


def _span_links(text: str | None) -> tuple[SpanLink, ...]:
    if text is None or text == "[]":
        return ()
    return tuple(SpanLink(t, s, state, a) for t, s, state, a in json.loads(text))


_READERS: dict[str, Callable[[Any], Any]] = {
    "tool_arguments": _loads,
    "tool_result": _loads,
    "input_messages": _messages,
    "output_messages": _messages,
    "attributes": json.loads,
    "events": _span_events,
    "links": _span_links,
}
"""How a JSON column is read back into its ``Span`` field (the others are taken as they are)."""


def from_table(table: pa.Table) -> list[Span]:
    """The inverse of ``to_table`` (build and day columns are not part of a span).

    A part written before the ``ADDED_COLUMNS`` reads them as their empty values.
    """
    for name in ADDED_COLUMNS:
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(table.num_rows, type=pa.string()))
    rows = table.select(list(ROW_FIELDS))
    resources: dict[str, Any] = {}  # one object per distinct resource, as on ingestion
    out = []
    for row in rows.to_pylist():
        fields = {
            name: _READERS[name](row[name]) if name in _READERS else row[name]
            for name in ROW_FIELDS
        }
        resource_text = row["resource"]
        if resource_text not in resources:
            resources[resource_text] = json.loads(resource_text)
        fields["resource"] = resources[resource_text]
        out.append(Span(**fields))
    return out
