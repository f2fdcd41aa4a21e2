"""Type stub of the C argument verdict (``_argcheck.c``)."""

from collections.abc import Mapping, Sequence
from typing import Any

def acceptable(
    arguments: Mapping[str, Any],
    expected: Mapping[str, Sequence[Any]],
    properties: Mapping[str, Any],
    required: Sequence[str],
) -> bool | None:
    """``arguments._acceptable``'s verdict, or None where only that reference can decide."""
