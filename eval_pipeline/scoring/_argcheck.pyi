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

def value_acceptable(
    value: Any, acceptable: Sequence[Any], schema: Mapping[str, Any] | None
) -> bool | None:
    """``arguments.value_error(value, acceptable, schema) is None``, or None: ask it."""
