"""Type stub of the native keys document builder (``_keys.c``)."""

def keys_document(keys: list[tuple[str, str, bool]]) -> str | None:
    """``ledger._keys_document``'s text of plain keys; None when a key is not plain."""
