"""The redaction scanner over the store-row fields outside the payloads.

``Redactor`` scrubs the payloads (arguments, results, messages, attribute values). Personal
data also arrives in every other string the store keeps: span and event names, status
messages, agent names, free-text ids (tool call, conversation), scope names, resource and
event attributes, and attribute keys. ``scrub_row`` runs the same tokeniser over those, on
both ingest paths, so no stored string escapes the scanner. Trace and span ids are exempt: the
decoders accept them only as hex ids, so they cannot hold personal data.

Every string column of the store is in exactly one of the classes below (a test checks it
against ``span_table.SCHEMA``, so a new column cannot be forgotten). To scan a new column: a
plain string goes in ``TEXT_FIELDS``; an id or setting that is exempt only when it has id
syntax in ``STRUCTURAL_FIELDS``; a JSON value (dict or list: every string, key and long number
scanned) in ``VALUE_FIELDS``; a tuple of records (like ``events``) gets a case in
``RowScrubber.scrub_row`` that applies ``scrub_text`` to its strings and ``scrub_value`` to its
attributes (``links``: their trace states and attributes; link ids are hex like span ids).
"""

from operator import itemgetter
from typing import Any

from eval_pipeline.traces.model import SpanEvent, SpanLink
from eval_pipeline.traces.redact.redactor import Redactor, structural
from eval_pipeline.traces.redact.unseen_fields import unseen
from eval_pipeline.traces.store.span_table import ROW_FIELDS, Row

TEXT_FIELDS = (
    "name",
    "status_message",
    "agent_name",
    "tool_name",
    "tool_call_id",
    "conversation_id",
    "scope_name",
    "trace_state",
    "schema_url",
    "resource_schema_url",
)
"""Free-text columns: every value scanned."""
STRUCTURAL_FIELDS = ("model", "provider")
"""Ids and settings: scanned unless the value has id syntax (``redactor.STRUCTURAL_ATTRIBUTES``)."""
VALUE_FIELDS: tuple[str, ...] = ()
"""Columns holding a JSON value of their own (none yet besides ``resource``, cached below)."""
RECORD_FIELDS = ("events", "links", "resource")
"""Columns of records, each with its own case in ``RowScrubber.scrub_row``."""
REDACTOR_FIELDS = ("tool_arguments", "tool_result", "input_messages", "output_messages")
"""Payloads the ``Redactor`` scrubs (and ``attributes``: values there, keys here)."""
EXEMPT_FIELDS = {
    "trace_id": "hex id (decoders accept nothing else)",
    "span_id": "hex id (decoders accept nothing else)",
    "parent_span_id": "hex id (decoders accept nothing else)",
    "kind": "enum name",
    "status_code": "enum name",
    "operation": "enum name",
    "dialect": "set by the normaliser",
    "convention_version": "set by the normaliser",
}
"""Columns no sender's text reaches, with the reason."""

_TEXT_FIELDS = tuple(map(ROW_FIELDS.index, TEXT_FIELDS))
_STRUCTURAL_FIELDS = tuple(map(ROW_FIELDS.index, STRUCTURAL_FIELDS))
_VALUE_FIELDS = tuple(map(ROW_FIELDS.index, VALUE_FIELDS))
_ATTRIBUTES = ROW_FIELDS.index("attributes")
_EVENTS = ROW_FIELDS.index("events")
_LINKS = ROW_FIELDS.index("links")
_RESOURCE = ROW_FIELDS.index("resource")
_COLUMN_GETTERS = tuple(
    (index, itemgetter(index), index in _STRUCTURAL_FIELDS)
    for index in (*_TEXT_FIELDS, *_STRUCTURAL_FIELDS)
)
_SCANNED = tuple(index for index, _, _ in _COLUMN_GETTERS)
_RECORDS = (_ATTRIBUTES, _EVENTS, _LINKS, _RESOURCE)
"""Where ``unseen_fields.unseen`` finds attributes, events, links and the resource."""
_GET_ATTRIBUTES = itemgetter(_ATTRIBUTES)
_GET_RESOURCE = itemgetter(_RESOURCE)


class RowScrubber:
    """Applies a ``Redactor``'s tokeniser to the non-payload fields of store rows."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._clean = redactor.tokens.clean
        self._resources: dict[int, tuple[Any, Any]] = {}  # shared resources, scrubbed once

    def scrub_row(self, row: Row) -> Row:
        """``row`` with personal data in its other fields tokenised (the same row if none)."""
        values: list[Any] | None = None
        text = self._redactor.scrub_text
        clean = self._clean
        for index in _TEXT_FIELDS:
            value = row[index]
            # ``type`` first: a decoder bug handing a non-text value here (an object as a
            # scope name) must not crash on ``in`` (unhashable); the store rejects that row.
            if type(value) is str and value not in clean:
                cleaned = text(value)
                if cleaned != value:
                    values = values or list(row)
                    values[index] = cleaned
        for index in _STRUCTURAL_FIELDS:
            value = row[index]
            if type(value) is str and value not in clean and not structural(value):
                cleaned = text(value)
                if cleaned != value:
                    values = values or list(row)
                    values[index] = cleaned
        for index in _VALUE_FIELDS:
            value = row[index]
            cleaned = self.scrub_value(value)
            if cleaned != value:
                values = values or list(row)
                values[index] = cleaned
        attributes = row[_ATTRIBUTES]
        cleaned_keys = self._keys(attributes)
        if cleaned_keys is not attributes:
            values = values or list(row)
            values[_ATTRIBUTES] = cleaned_keys
        events = row[_EVENTS]
        if events:
            cleaned_events = tuple(
                SpanEvent(text(e.name), e.time_unix_nano, self.scrub_value(e.attributes))
                for e in events
            )
            if cleaned_events != events:
                values = values or list(row)
                values[_EVENTS] = cleaned_events
        links = row[_LINKS]
        if links:
            cleaned_links = tuple(map(self._link, links))
            if cleaned_links != links:
                values = values or list(row)
                values[_LINKS] = cleaned_links
        resource = row[_RESOURCE]
        seen = self._resources.get(id(resource))
        if seen is None or seen[0] is not resource:
            seen = self._resources[id(resource)] = (resource, self.scrub_value(resource))
        if seen[1] != resource:
            values = values or list(row)
            values[_RESOURCE] = seen[1]
        return row if values is None else tuple(values)

    def scrub_rows(self, rows: list[Row]) -> list[Row]:
        """``[scrub_row(r) for r in rows]``, decided column by column (a batch's rows).

        Each distinct value of a text column is scanned once, in the order of first
        appearance, and only rows holding a changed value are rebuilt: the fields repeat
        (span names, agents, scopes, one resource) and are nearly always clean, so most
        batches are decided by one pass over the rows that finds what the tokeniser has not
        seen (``unseen_fields.unseen``). The tokeniser gives a text
        the same result wherever it sits, so the rows are ``scrub_row``'s. Batches with events
        or links (rare) or ``VALUE_FIELDS`` take ``scrub_row`` row by row.
        """
        found = None if _VALUE_FIELDS else unseen(rows, _SCANNED, self._clean, *_RECORDS)
        if found is None:
            return list(map(self.scrub_row, rows))
        per_column, keys, resources = found
        text = self._redactor.scrub_text
        changed: dict[int, list[Any]] = {}  # row number -> its values, once one changes

        def values_of(number: int) -> list[Any]:
            """Row ``number``'s values to change (copied from the row the first time)."""
            return changed.get(number) or changed.setdefault(number, list(rows[number]))

        for (index, column_of, is_structural), pending in zip(
            _COLUMN_GETTERS, per_column, strict=True
        ):
            fixes: dict[Any, Any] = {}
            for value in pending:
                if is_structural and structural(value):
                    continue
                cleaned = text(value)
                if cleaned != value:
                    fixes[value] = cleaned
            if fixes:
                for number, value in enumerate(map(column_of, rows)):
                    if value in fixes:
                        values_of(number)[index] = fixes[value]
        renamed = {key for key in keys if text(key) != key}
        if renamed:
            for number, held in enumerate(map(_GET_ATTRIBUTES, rows)):
                if not renamed.isdisjoint(held):
                    values_of(number)[_ATTRIBUTES] = {
                        text(key): value for key, value in held.items()
                    }
        scrubbed: dict[int, Any] = {}
        for resource in resources:
            seen = self._resources.get(id(resource))
            if seen is None or seen[0] is not resource:
                seen = self._resources[id(resource)] = (resource, self.scrub_value(resource))
            if seen[1] != resource:
                scrubbed[id(resource)] = seen[1]
        if scrubbed:
            for number, resource in enumerate(map(_GET_RESOURCE, rows)):
                if id(resource) in scrubbed:
                    values_of(number)[_RESOURCE] = scrubbed[id(resource)]
        if not changed:
            return rows
        out = list(rows)
        for number, values in changed.items():
            out[number] = tuple(values)
        return out

    def _keys(self, attributes: dict[str, Any]) -> dict[str, Any]:
        """``attributes`` with personal data in its keys tokenised (values: ``Redactor``)."""
        if self._clean.issuperset(attributes):  # the usual case: keys seen before
            return attributes
        text = self._redactor.scrub_text
        if all(text(key) == key for key in attributes):
            return attributes
        return {text(key): value for key, value in attributes.items()}

    def _link(self, link: SpanLink) -> SpanLink:
        """``link`` with personal data in its trace state and attributes tokenised."""
        state = link.trace_state
        attributes = self.scrub_value(link.attributes) if link.attributes else {}
        cleaned_state = self._redactor.scrub_text(state) if state is not None else None
        if cleaned_state == state and attributes == link.attributes:
            return link
        return SpanLink(link.trace_id, link.span_id, cleaned_state, attributes)

    def scrub_text(self, value: str) -> str:
        """A string with its personal data tokenised (for a new column's strings)."""
        return self._redactor.scrub_text(value)

    def scrub_value(self, value: Any) -> Any:
        """A JSON value with every string, key and long number scanned."""
        return self._redactor.scrub_value(value)
