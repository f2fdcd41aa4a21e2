"""Type stub of the C walk of arguments for the canary search (``_plaintext.c``)."""

from typing import Any

def plain_parts(value: Any, parts: list[str]) -> bool:
    """Append the text of every key and leaf of ``value`` to ``parts``; False: not plain."""
