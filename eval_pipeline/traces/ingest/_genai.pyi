"""Type stub of the GenAI fast-path steps in C (``_genai.c``)."""

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
