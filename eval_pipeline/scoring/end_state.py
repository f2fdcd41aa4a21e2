"""The ``expected_end_state`` format ``task_success`` understands, and action matching.

tau-bench style: the world after a correct run is described by the state-changing actions that
must have been executed::

    {"actions": [{"name": "cancel_pending_order",
                  "arguments": {"order_id": "#W123", "reason": "no longer needed"},
                  "compare_args": null}],
     "write_tools": ["cancel_pending_order", "modify_pending_order_items", ...]}

A bare list is read as ``{"actions": list}``, and ``write_actions`` (the tau-bench importers'
key) is accepted as an alias of ``actions``. An action is performed by a call with the same
name whose arguments equal the action's on the compared keys: ``compare_args`` when given,
else every key of either side (JSON equality: ``50 == 50.0``, strings exact). This is
tau2-bench's ``Action.compare_with_tool_call``, except that a call which leaves out an
argument the action sets does not match (tau2 compares only the keys the call has).
``write_tools``, when given, lists the state-changing tools: a successful call to one of them
that performs no expected action also changed the state, so the run fails (the database would
not equal the expected one).
"""

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from eval_pipeline.scoring.arguments import parse_arguments
from eval_pipeline.traces.model import ToolCall


class EndStateFormatError(ValueError):
    """``expected_end_state`` is present but not in the documented format."""


class ExpectedAction(NamedTuple):
    """One action that must have been performed."""

    name: str
    arguments: dict[str, Any]
    compare_args: tuple[str, ...] | None = None
    action_id: str | None = None


class EndState(NamedTuple):
    """A parsed ``expected_end_state``."""

    actions: tuple[ExpectedAction, ...]
    write_tools: frozenset[str] = frozenset()


def parse_end_state(raw: Any) -> EndState:
    """Parse the documented format (see the module docstring).

    Raises:
        EndStateFormatError: the value is neither a list of actions nor a mapping with one.
    """
    # ``type(x) is dict`` / ``list`` first: the same answers as the ABC checks, which cost a
    # Python-level ``__instancecheck__`` each (every run's end state is parsed).
    if type(raw) is not dict and isinstance(raw, Sequence) and not isinstance(raw, str):
        raw = {"actions": list(raw)}
    mapping = type(raw) is dict or isinstance(raw, Mapping)
    if mapping and "actions" not in raw and "write_actions" in raw:
        raw = {**raw, "actions": raw["write_actions"]}
    listed = raw.get("actions") if mapping else None
    if not mapping or not (type(listed) is list or isinstance(listed, Sequence)):
        raise EndStateFormatError(
            "expected_end_state must be a list of actions or {'actions': [...]}, got "
            f"{type(raw).__name__}"
        )
    actions = []
    for position, entry in enumerate(raw["actions"]):
        if not (type(entry) is dict or isinstance(entry, Mapping)) or not isinstance(
            entry.get("name"), str
        ):
            raise EndStateFormatError(f"expected_end_state.actions[{position}] needs a 'name'")
        compare = entry.get("compare_args")
        actions.append(
            ExpectedAction(
                entry["name"],
                dict(entry.get("arguments") or {}),
                None if compare is None else tuple(compare),
                entry.get("action_id"),
            )
        )
    return EndState(tuple(actions), frozenset(raw.get("write_tools") or ()))


def action_matches(action: ExpectedAction, name: str, arguments: Any) -> bool:
    """Whether a call (name, arguments) performs ``action`` (see the module docstring)."""
    if name != action.name:
        return False
    return performs(action, name, parse_arguments(arguments))


def performs(action: ExpectedAction, name: str, parsed: dict[str, Any] | None) -> bool:
    """``action_matches`` for arguments already parsed (``parse_arguments``)."""
    if name != action.name or parsed is None:
        return False
    expected = action.arguments
    if action.compare_args is not None:
        return all(
            key in parsed and key in expected and parsed[key] == expected[key]
            for key in action.compare_args
        )
    # Every key of either side, on both sides: the same keys, then equal values.
    if len(parsed) != len(expected):
        return False
    return all(key in parsed and parsed[key] == value for key, value in expected.items())


def performed_by(
    action: ExpectedAction, calls: Sequence[ToolCall], *, require_success: bool = True
) -> ToolCall | None:
    """The first call that performs ``action`` (successfully, unless told otherwise)."""
    for call in calls:
        if require_success and not call.succeeded:
            continue
        if action_matches(action, call.name, call.arguments):
            return call
    return None
