"""Type stub of the C redaction scanner (``_scanner.c``)."""

from collections.abc import Callable

class Scanner:
    """The redaction scan of ``pii.Tokeniser`` under one token key."""

    def __init__(self, key: bytes) -> None: ...
    def redact(
        self,
        text: str,
        detectors: int,
        grouped: Callable[[str], str | None],
        checked: dict[tuple[str, str], str | None],
        lookups: int,
        other: Callable[[int, str], str | None] | None = None,
    ) -> tuple[str, tuple[str, ...]] | None:
        """``text`` redacted and the kinds replaced; None: scan it with ``re``.

        ``grouped``: the token of a grouped phone candidate (a ``phonenumbers`` look-up),
        called while ``lookups`` last for candidates not in ``checked`` (and, for a candidate
        holding non-ASCII digits, after them too). ``other(detector, match)``: the token of a
        match of another detector holding non-ASCII digits; without it, a text holding such
        digits gives None.
        """

def find(text: str, detector: int, generic: bool = False) -> list[tuple[int, int, str]]:
    """One detector's matches, as its pattern's ``finditer`` gives them (for tests)."""

def has_escape(text: str) -> bool:
    """A percent or backslash-u escape is in ``text`` (``pii._ESCAPED.search``)."""

def base64_form(text: str) -> bool:
    """``text`` is base64 characters then up to two ``=`` (``pii._BASE64.fullmatch``)."""

def unescaped(text: str) -> str:
    """``pii.unescaped``: backslash-u escapes decoded, then percent escapes."""
