"""What a batch's non-payload row fields hold that the tokeniser has not seen yet.

``RowScrubber.scrub_rows`` scans each distinct value of the free-text columns, each distinct
attribute key and each distinct resource of a batch once. ``unseen`` finds them in one pass
over the rows.
"""

from collections.abc import Sequence
from typing import Any

Unseen = tuple[list[list[str]], list[str], list[Any]]
"""Per column its unseen values, the unseen attribute keys, the distinct resources."""


def unseen(
    rows: Sequence[tuple[Any, ...]],
    columns: tuple[int, ...],
    clean: set[str],
    attributes: int,
    events: int,
    links: int,
    resource: int,
) -> Unseen | None:
    """What ``clean`` lacks of a batch: new column values and attribute keys, and resources.

    Each listed column's distinct values neither None nor in ``clean``, in first-seen order;
    the distinct keys of the rows' ``attributes`` dicts not in ``clean``; the distinct
    ``resource`` objects (by identity). None: a batch ``scrub_row`` must take row by row
    (a row that is not a tuple or holds events or links, attributes that are not a dict, a
    column value neither None nor a str).
    """
    per_column: list[dict[str, None]] = [{} for _ in columns]
    keys: dict[str, None] = {}
    resources: dict[int, Any] = {}
    last = max(*columns, attributes, events, links, resource)
    for row in rows:
        if type(row) is not tuple or len(row) <= last or _held(row, events) or _held(row, links):
            return None
        for found, at in zip(per_column, columns, strict=True):
            value = row[at]
            if value is None:
                continue
            if type(value) is not str:
                return None
            if value not in clean:
                found.setdefault(value)
        held = row[attributes]
        if type(held) is not dict:
            return None
        for key in held:
            if key not in clean:
                keys.setdefault(key)
        resources.setdefault(id(row[resource]), row[resource])
    return [list(found) for found in per_column], list(keys), list(resources.values())


def _held(row: tuple[Any, ...], index: int) -> bool:
    value = row[index]
    return type(value) is not tuple or bool(value)
