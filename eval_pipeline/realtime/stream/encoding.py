"""Stored rows -> span stream messages: one per span, then one per root span that ended.

A span is carried as its store row (``span_table.Row``, ``ROW_FIELDS`` order) in JSON, messages
and events as objects, so it decodes back to the ``Span`` the store reads (``decoding``).
orjson writes it unless that could change a value (it writes NaN and infinities as null and
refuses integers beyond 64 bits, which its parser would read back as floats): then the
standard encoder writes it, NaN as ``NaN``, and marks the object ``"exact": true`` so it is
parsed back by the standard parser too.
"""

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import orjson

from eval_pipeline.realtime.stream.events import (
    MAX_NAMED_SPANS,
    SPAN_KIND,
    TRACE_KIND,
    OutgoingMessage,
    span_subject,
    trace_subject,
)
from eval_pipeline.traces.store.span_table import (
    PARENT_SPAN_ID,
    ROW_FIELDS,
    SPAN_ID,
    TRACE_ID,
    Row,
)

END_TIME = ROW_FIELDS.index("end_time_unix_nano")
INPUT_MESSAGES = ROW_FIELDS.index("input_messages")
OUTPUT_MESSAGES = ROW_FIELDS.index("output_messages")


def _dumps(value: dict[str, Any], nulls: int = 0) -> bytes:
    """``value`` as JSON that parses back to equal values; ``nulls``: the Nones it holds.

    orjson's text is exact when it holds no ``null`` but the known Nones' (a NaN or an
    infinity would be one more; so would the text "null" inside a string, which only costs
    the slower encoder) and orjson accepted every value.
    """
    try:
        text = orjson.dumps(value)
        if text.count(b"null") == nulls:
            return text
    except (TypeError, orjson.JSONEncodeError):
        pass  # integers beyond 64 bits, lone surrogates, non-string keys
    return _EXACT.encode({**value, "exact": True}).encode()


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    raise TypeError(f"cannot encode {type(value).__name__} on the span stream")


_EXACT = json.JSONEncoder(separators=(",", ":"), default=_plain)
"""NaN and infinities as ``NaN``/``Infinity``, big integers in full, surrogates escaped."""


def span_payload(row: Row, build: str, day: str) -> bytes:
    """The payload of one span event."""
    return _dumps({"kind": SPAN_KIND, "build": build, "day": day, "row": row}, _nulls(row))


def _nulls(row: Row) -> int:
    """The Nones of a row as orjson writes it: the row's own and its messages' unset fields."""
    count = row.count(None)
    for field in (INPUT_MESSAGES, OUTPUT_MESSAGES):
        messages = row[field]
        if type(messages) is not str:  # a text already encoded counts as a string
            for message in messages:
                count += (message.name is None) + (message.finish_reason is None)
    return count


def encode_rows(
    prefix: str, rows: Sequence[Row], builds: Sequence[str], day: str
) -> list[OutgoingMessage]:
    """The messages for stored rows: one per span, then one per root span that ended.

    A completion names the spans published with its root (``TraceCompleted.span_ids``), so
    a worker can tell a trace whose spans are still in flight from one it has whole.
    """
    if len(rows) != len(builds):
        raise ValueError(f"{len(rows)} rows but {len(builds)} builds")
    messages = []
    roots: list[tuple[Row, str]] = []
    published: dict[tuple[str, str], list[str]] = {}
    for row, build in zip(rows, builds, strict=True):
        trace_id, span_id = row[TRACE_ID], row[SPAN_ID]
        messages.append(
            OutgoingMessage(
                span_subject(prefix, build, day),
                f"{build}/{trace_id}/{span_id}",
                span_payload(row, build, day),
                SPAN_KIND,
                build,
                day,
                trace_id,
            )
        )
        published.setdefault((build, trace_id), []).append(span_id)
        if row[PARENT_SPAN_ID] is None and row[END_TIME]:
            roots.append((row, build))
    return messages + [_completion(prefix, row, build, day, published) for row, build in roots]


def _completion(
    prefix: str, root: Row, build: str, day: str, published: dict[tuple[str, str], list[str]]
) -> OutgoingMessage:
    trace_id, span_id = root[TRACE_ID], root[SPAN_ID]
    event = {
        "kind": TRACE_KIND,
        "build": build,
        "day": day,
        "trace_id": trace_id,
        "root_span_id": span_id,
        "root_end_unix_nano": root[END_TIME],
        "span_ids": published[(build, trace_id)][:MAX_NAMED_SPANS],
    }
    return OutgoingMessage(
        trace_subject(prefix, build, day),
        f"{build}/{trace_id}/{span_id}/completed",
        orjson.dumps(event),
        TRACE_KIND,
        build,
        day,
        trace_id,
    )
