"""Type stub of the C redaction scanner (``_scanner.c``)."""

from collections.abc import Callable

class Scanner:
    """The redaction scan of ``pii.Tokeniser`` under one token key."""

    def __init__(self, key: bytes) -> None: ...
    def redact(
        self, text: str, detectors: int, grouped: Callable[[str], str | None]
    ) -> tuple[str, tuple[str, ...]] | None:
        """``text`` redacted and the kinds replaced; None: scan it with ``re``."""

def find(text: str, detector: int) -> list[tuple[int, int, str]]:
    """One detector's matches, as its pattern's ``finditer`` gives them (for tests)."""
