"""The redaction scanner over the store columns issue 15 added (links, trace state, URLs).

``redact.fields.RowScrubber`` scans every other non-payload string of a row. The added columns
(``span_table.ADDED_COLUMNS``) carry strings from the producer too: link attributes and trace
states, the span's trace state, the schema URLs. ``AddedColumnScrubber`` runs the same
``Redactor`` scanner over them (``scrub_value`` / ``scrub_text``, as ``RowScrubber`` does for
event attributes and names), on both ingest paths, so no stored string escapes it. Link ids
are exempt like span ids: the decoders accept them only as hex.
"""

from typing import Any

from eval_pipeline.traces.model import SpanLink
from eval_pipeline.traces.redact.redactor import Redactor
from eval_pipeline.traces.store.span_table import ROW_FIELDS, Row

_LINKS = ROW_FIELDS.index("links")
_TEXTS = tuple(
    ROW_FIELDS.index(name) for name in ("trace_state", "schema_url", "resource_schema_url")
)


class AddedColumnScrubber:
    """Applies a ``Redactor``'s scanner to the added columns of store rows."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._texts: dict[str, str] = {}  # URLs and trace states repeat on every span

    def scrub_row(self, row: Row) -> Row:
        """``row`` with personal data in its added columns tokenised (the same row if none)."""
        values: list[Any] | None = None
        for index in _TEXTS:
            value = row[index]
            if type(value) is str:
                cleaned = self._text(value)
                if cleaned != value:
                    values = values or list(row)
                    values[index] = cleaned
        links = row[_LINKS]
        if links:
            cleaned_links = tuple(self._link(link) for link in links)
            if cleaned_links != links:
                values = values or list(row)
                values[_LINKS] = cleaned_links
        return row if values is None else tuple(values)

    def _text(self, value: str) -> str:
        cleaned = self._texts.get(value)
        if cleaned is None:
            if len(self._texts) > 4096:
                self._texts.clear()
            cleaned = self._texts[value] = self._redactor.scrub_text(value)
        return cleaned

    def _link(self, link: SpanLink) -> SpanLink:
        state = link.trace_state
        attributes = self._redactor.scrub_value(link.attributes) if link.attributes else {}
        cleaned_state = self._text(state) if state is not None else None
        if cleaned_state == state and attributes == link.attributes:
            return link
        return SpanLink(link.trace_id, link.span_id, cleaned_state, attributes)
