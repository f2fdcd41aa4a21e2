"""Spans <-> Arrow tables: the column layout of the span store.

Scalar fields are columns; structured fields (arguments, results, messages, attributes,
events, resource) are JSON text, so every span round-trips exactly (``Span`` equality holds
after a write and a read).
"""

import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from eval_pipeline.traces.messages import messages_from_json, messages_to_json
from eval_pipeline.traces.model import Message, Span, SpanEvent

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
        ("build", pa.string()),
        ("day", pa.string()),
    ]
)

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _json(value: Any) -> str | None:
    return None if value is None else _dumps(value)


def _events(events: tuple[SpanEvent, ...]) -> str:
    if not events:
        return "[]"
    return _dumps([[e.name, e.time_unix_nano, e.attributes] for e in events])


def to_table(spans: Sequence[Span], builds: Sequence[str], day: str | None) -> pa.Table:
    """Spans (with the build of each) -> one Arrow table in ``SCHEMA``."""
    resources: dict[int, str] = {}

    def resource(span: Span) -> str:
        key = id(span.resource)
        text = resources.get(key)
        if text is None:
            text = resources[key] = _dumps(span.resource)
        return text

    encoded: dict[int, tuple[tuple[Message, ...], str]] = {}

    def messages(items: tuple[Message, ...]) -> str:
        # Histories repeat across spans as the same tuple object: encode each once.
        if not items:
            return "[]"
        seen = encoded.get(id(items))
        if seen is None or seen[0] is not items:
            seen = encoded[id(items)] = (items, _dumps(messages_to_json(items)))
        return seen[1]

    columns: dict[str, list[Any]] = {
        "trace_id": [s.trace_id for s in spans],
        "span_id": [s.span_id for s in spans],
        "parent_span_id": [s.parent_span_id for s in spans],
        "name": [s.name for s in spans],
        "kind": [s.kind for s in spans],
        "start_time_unix_nano": [s.start_time_unix_nano for s in spans],
        "end_time_unix_nano": [s.end_time_unix_nano for s in spans],
        "status_code": [s.status_code for s in spans],
        "status_message": [s.status_message for s in spans],
        "operation": [s.operation for s in spans],
        "agent_name": [s.agent_name for s in spans],
        "tool_name": [s.tool_name for s in spans],
        "tool_call_id": [s.tool_call_id for s in spans],
        "tool_arguments": [_json(s.tool_arguments) for s in spans],
        "tool_result": [_json(s.tool_result) for s in spans],
        "model": [s.model for s in spans],
        "provider": [s.provider for s in spans],
        "input_tokens": [s.input_tokens for s in spans],
        "output_tokens": [s.output_tokens for s in spans],
        "conversation_id": [s.conversation_id for s in spans],
        "input_messages": [messages(s.input_messages) for s in spans],
        "output_messages": [messages(s.output_messages) for s in spans],
        "attributes": [_dumps(s.attributes) for s in spans],
        "events": [_events(s.events) for s in spans],
        "resource": [resource(s) for s in spans],
        "scope_name": [s.scope_name for s in spans],
        "dialect": [s.dialect for s in spans],
        "convention_version": [s.convention_version for s in spans],
        "build": list(builds),
        "day": [day] * len(spans),
    }
    return pa.Table.from_pydict(columns, schema=SCHEMA)


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def from_table(table: pa.Table) -> list[Span]:
    """The inverse of ``to_table`` (build and day columns are not part of a span)."""
    rows = table.select([name for name in SCHEMA.names if name not in ("build", "day")])
    resources: dict[str, Any] = {}
    out = []
    for row in rows.to_pylist():
        resource_text = row["resource"]
        if resource_text not in resources:
            resources[resource_text] = json.loads(resource_text)
        out.append(
            Span(
                trace_id=row["trace_id"],
                span_id=row["span_id"],
                parent_span_id=row["parent_span_id"],
                name=row["name"],
                kind=row["kind"],
                start_time_unix_nano=row["start_time_unix_nano"],
                end_time_unix_nano=row["end_time_unix_nano"],
                status_code=row["status_code"],
                status_message=row["status_message"],
                operation=row["operation"],
                agent_name=row["agent_name"],
                tool_name=row["tool_name"],
                tool_call_id=row["tool_call_id"],
                tool_arguments=_loads(row["tool_arguments"]),
                tool_result=_loads(row["tool_result"]),
                model=row["model"],
                provider=row["provider"],
                input_tokens=row["input_tokens"],
                output_tokens=row["output_tokens"],
                conversation_id=row["conversation_id"],
                input_messages=messages_from_json(json.loads(row["input_messages"])),
                output_messages=messages_from_json(json.loads(row["output_messages"])),
                attributes=json.loads(row["attributes"]),
                events=tuple(SpanEvent(n, t, a) for n, t, a in json.loads(row["events"])),
                resource=resources[resource_text],
                scope_name=row["scope_name"],
                dialect=row["dialect"],
                convention_version=row["convention_version"],
            )
        )
    return out
