"""Shared rules for tau-bench actions (v1 and tau2): what writes, what must come first.

tau-bench scores a task by the database state its write actions leave behind, so the write
actions are the expected end state. Ordering constraints encode the domain policy the tasks are
built on: identify the user before acting, and look a record up before changing it.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eval_pipeline.datasets.item import ExpectedToolCall, OrderingConstraint

_READ_PREFIXES = ("get_", "find_", "search_", "list_")
_READ_NAMES = frozenset({"calculate", "think"})
_OPTIONAL = frozenset({"calculate", "think"})
_INTENTS = (
    ("return_", "return"),
    ("exchange_", "exchange"),
    ("cancel_", "cancel"),
    ("modify_", "modify"),
    ("update_", "modify"),
    ("book_", "book"),
    ("send_certificate", "compensate"),
    ("transfer_to_human", "transfer"),
)
_ENTITY_KEYS = ("order_id", "reservation_id")


def is_write(tool: str) -> bool:
    """True for tools that change the environment's state (by tau-bench's naming)."""
    return not (tool.startswith(_READ_PREFIXES) or tool in _READ_NAMES)


def expected_call(name: str, arguments: Mapping[str, Any] | None) -> ExpectedToolCall:
    """An exact expected call: each argument's single acceptable value."""
    return ExpectedToolCall(
        name=name,
        arguments={str(k): [v] for k, v in dict(arguments or {}).items()},
        optional=name in _OPTIONAL,
    )


def intent(actions: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """The task's intent slice: its write kinds joined with ``+``, or ``inquiry``."""
    kinds: list[str] = []
    for name, _ in actions:
        for prefix, label in _INTENTS:
            if name.startswith(prefix) and label not in kinds:
                kinds.append(label)
    return "+".join(sorted(kinds)) or "inquiry"


def primary_tool(actions: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """The tool slice: the first write tool, else the last read tool, else ``none``."""
    writes = [name for name, _ in actions if is_write(name)]
    if writes:
        return writes[0]
    return actions[-1][0] if actions else "none"


def slices(domain: str, actions: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, str]:
    """The slices of a tau-bench or tau2 task: its domain, intent, language and primary tool."""
    return {
        "domain": domain,
        "intent": intent(actions),
        "language": "en",
        "tool": primary_tool(actions),
    }


def _values(arguments: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    for value in arguments.values():
        for leaf in value if isinstance(value, list) else [value]:
            if isinstance(leaf, str | int) and not isinstance(leaf, bool):
                found.add(str(leaf))
    return found


def ordering(actions: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[OrderingConstraint, ...]:
    """Reads that must precede writes.

    A user lookup (``find_user_id_*``) precedes every write (authenticate first), and a read
    sharing an identifier with a later write (``get_order_details`` on the order being returned)
    precedes that write.
    """
    constraints: list[OrderingConstraint] = []
    for index, (name, arguments) in enumerate(actions):
        if not is_write(name) or name.startswith("transfer_to_human"):
            continue
        ids = _values(arguments)
        for earlier, earlier_args in actions[:index]:
            if is_write(earlier) or earlier in _READ_NAMES:
                continue
            if earlier.startswith("find_user_id") or ids & _values(earlier_args):
                pair = OrderingConstraint(before=earlier, after=name)
                if pair not in constraints:
                    constraints.append(pair)
    return tuple(constraints)


def entities(actions: Iterable[tuple[str, Mapping[str, Any]]]) -> tuple[str, ...]:
    """Identifiers the run must act on: order / reservation ids of the write actions."""
    found: list[str] = []
    for name, arguments in actions:
        if not is_write(name):
            continue
        for key in _ENTITY_KEYS:
            value = arguments.get(key)
            if isinstance(value, str) and value not in found:
                found.append(value)
    return tuple(found)


def end_state(actions: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """The expected end state: the write actions with their exact arguments, in order."""
    return {
        "write_actions": [
            {"name": name, "arguments": dict(arguments)}
            for name, arguments in actions
            if is_write(name)
        ]
    }
