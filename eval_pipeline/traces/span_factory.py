"""``Span`` objects from a dictionary of their fields.

For code that assembles a span's fields by name (the redactor's changes over a span's fields,
events read back from the stream): ``span_from_state(state)`` is ``Span(**state)``.
"""

from typing import Any

from eval_pipeline.traces.model import Span


def span_from_state(state: dict[str, Any]) -> Span:
    """The ``Span`` whose fields are ``state`` (every required field present)."""
    return Span(**state)
