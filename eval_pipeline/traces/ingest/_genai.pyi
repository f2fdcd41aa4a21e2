"""Type stub of the GenAI fast-path steps in C (``_genai.c`` and its ``_*.h``)."""

from typing import Any

def output_text(
    value: Any,
    hooks: tuple[Any, ...],
    dropped: set[str],
    found: list[str],
    calls: dict[str, list[dict[str, Any]]] | None,
) -> str | None:
    """``output_messages.output_text_reference``'s text for the common shapes; None: decline.

    ``hooks``: ``output_messages.native_hooks(redactor)``. Declining leaves ``dropped``,
    ``found`` and ``calls`` untouched.
    """

def tail(
    attrs: dict[str, Any],
    lifted: dict[str, Any],
    resource: dict[str, Any],
    scope: str | None,
    hooks: tuple[Any, ...],
    calls: dict[str, list[dict[str, Any]]] | None,
    urls: tuple[str | None, str | None],
) -> tuple[Any, ...] | None:
    """``genai_row.genai_tail_reference``'s fields for the common span; None: decline.

    ``hooks``: ``genai_row.tail_hooks(redactor)``. Declining leaves ``attrs`` and ``calls``
    untouched.
    """

def wire_row(
    span: tuple[Any, ...],
    resource: dict[str, Any],
    scope: str | None,
    hooks: tuple[Any, ...],
    calls: dict[str, list[dict[str, Any]]] | None,
    urls: tuple[str | None, str | None],
) -> tuple[Any, ...] | None:
    """``span_rows.wire_row``'s row for a span whose attributes came split; None: decline."""

def wire_rows(
    spans: list[Any],
    start: int,
    resource: dict[str, Any],
    scope: str | None,
    hooks: Any,
    calls: dict[str, list[dict[str, Any]]],
    urls: tuple[str | None, str | None],
    out: list[tuple[Any, ...]],
) -> int:
    """``wire_row`` of each span from ``start``, appended to ``out``, until one is declined.

    Returns that span's index (``len(spans)`` when none is); an error of a span is raised
    after the rows of those before it were appended.
    """
