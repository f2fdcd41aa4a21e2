"""One span to its redacted store row: normalisation's lifted fields, then the policy.

Both kinds of ingest input end here. A decoded record (``RawSpan``) is lifted by its dialect
(``normaliser.lifted``), the policy is applied to the lifted fields and the row is built from
the record and those fields: no ``Span`` object on the way. A ``Span`` handed in (by an
importer or a runner, normalised or not) is normalised, read into its row, and the policy is
applied to that row's fields, never to the caller's objects.
"""

from operator import attrgetter
from typing import Any

from eval_pipeline.traces.decode.raw_span import RawSpan
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.normalise.normaliser import lifted, normalise_span
from eval_pipeline.traces.redact.redactor import Redactor
from eval_pipeline.traces.store.span_table import ROW_FIELDS, Row, span_row

_HEAD = attrgetter(*ROW_FIELDS[: ROW_FIELDS.index("status_message") + 1])
"""The record's fields before the lifted ones: ids, name, kind, times, status."""
_ORIGIN = attrgetter("links", "trace_state", "schema_url", "resource_schema_url")
"""The record's fields after ``convention_version``."""
(
    _OPERATION,
    _TOOL_NAME,
    _TOOL_ARGUMENTS,
    _TOOL_RESULT,
    _INPUTS,
    _OUTPUTS,
    _ATTRIBUTES,
) = map(
    ROW_FIELDS.index,
    (
        "operation",
        "tool_name",
        "tool_arguments",
        "tool_result",
        "input_messages",
        "output_messages",
        "attributes",
    ),
)


def record_row(raw: RawSpan, redactor: Redactor) -> Row:
    """The redacted store row of a decoded record (its lifted attributes changed in place)."""
    fields = lifted(raw)
    get = fields.__getitem__
    operation = get("operation")
    tool = get("tool_name")
    dropped: set[str] = set()
    arguments = get("tool_arguments")
    result = get("tool_result")
    if arguments is not None or result is not None:  # only tool spans carry them
        arguments, result = redactor.drop_tool_payload(dropped, tool, operation, arguments, result)
    inputs = get("input_messages")
    outputs = get("output_messages")
    attributes = get("attributes")
    changes = redactor.changes(dropped, arguments, result, inputs, outputs, attributes, owned=True)
    if changes is not None:
        arguments, result, inputs, outputs, attributes = changes
    return (
        *_HEAD(raw),
        operation,
        get("agent_name"),
        tool,
        get("tool_call_id"),
        arguments,
        result,
        get("model"),
        get("provider"),
        get("input_tokens"),
        get("output_tokens"),
        get("conversation_id"),
        inputs,
        outputs,
        attributes,
        get("events"),
        raw.resource,
        raw.scope_name,
        get("dialect"),
        get("convention_version"),
        *_ORIGIN(raw),
    )


def span_row_redacted(span: Span, redactor: Redactor) -> Row:
    """The redacted store row of a span handed in (the span itself is left as it is)."""
    row = span_row(normalise_span(span))
    dropped: set[str] = set()
    arguments, result = redactor.drop_tool_payload(
        dropped, row[_TOOL_NAME], row[_OPERATION], row[_TOOL_ARGUMENTS], row[_TOOL_RESULT]
    )
    changes = redactor.changes(
        dropped, arguments, result, row[_INPUTS], row[_OUTPUTS], row[_ATTRIBUTES]
    )
    if changes is None:
        return row
    values: list[Any] = list(row)
    (
        values[_TOOL_ARGUMENTS],
        values[_TOOL_RESULT],
        values[_INPUTS],
        values[_OUTPUTS],
        values[_ATTRIBUTES],
    ) = changes
    return tuple(values)
