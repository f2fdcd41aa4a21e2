"""Which tools only read: calls that can never perform a write (or back a claimed action).

A tool whose name starts with one of ``DEFAULT_READ_PREFIXES`` (``get_order``,
``search_policy``, ``transfer_to_agent``) reads, looks up or hands off; it is not a write, so it
neither counts as a redone write in ``handoff_quality`` nor backs a claimed refund in
``hallucinated_actions`` (``get_refund_policy`` matches ``*refund*`` but refunds nothing).
"""

from collections.abc import Sequence

DEFAULT_READ_PREFIXES = (
    "get",
    "list",
    "search",
    "find",
    "read",
    "fetch",
    "lookup",
    "look",
    "check",
    "query",
    "calculate",
    "compute",
    "view",
    "show",
    "describe",
    "think",
    "transfer_to",
    "handoff",
)


def is_read_only(tool_name: str, prefixes: Sequence[str] = DEFAULT_READ_PREFIXES) -> bool:
    """True when ``tool_name`` starts with a read (or hand-off) prefix."""
    return tool_name.lower().startswith(tuple(p.lower() for p in prefixes))
