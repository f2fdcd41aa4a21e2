"""What a production trace gives a regression case, and what the reviewer adds to it.

From the trace: the input messages of the run's root (its user turn when the root lists none),
the calls that must not recur (each failing tool call with its stored arguments, as
``forbidden_calls``, which ``trajectory_match`` and ``injection_resistance`` read), and slices
(``agent``, ``tool``). From the reviewer: the expected calls (``--expected-calls``: a JSON list
of ``{"name", "arguments", "optional"?}``, each argument value the one acceptable value), a
reference answer, and the calls that must not recur when the failing ones are not it (``[]``:
none), and the dataset whose tool schemas the case copies (a trace carries none; a
case naming tools needs their schemas to validate and to check arguments by type). A failing
call whose arguments the redaction policy dropped cannot be narrowed to its
arguments; forbidding its tool outright would forbid every later use, so it is listed as
skipped instead, with the reason.
"""

import json
from collections.abc import Sequence
from typing import Any

from eval_pipeline import json_input
from eval_pipeline.datasets.artefact import Dataset, DatasetError, tool_schema_name
from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall, ForbiddenCall
from eval_pipeline.traces.model import AgentRun, ToolCall


class CaseReferenceError(DatasetError):
    """A reviewer's reference is malformed; the message names the option and the entry."""


def input_messages(run: AgentRun) -> tuple[dict[str, Any], ...]:
    """The run's input as item messages (``{"role", "content"}``), from its root span."""
    root = run.span(run.root_span_id) if run.root_span_id else None
    messages = tuple(
        {"role": m.role, "content": m.text}
        for m in (root.input_messages if root is not None else ())
        if m.text.strip()
    )
    if messages:
        return messages
    return ({"role": "user", "content": run.user_input},) if run.user_input else ()


def _arguments(call: ToolCall) -> dict[str, Any] | None:
    value = call.arguments
    if isinstance(value, str):
        try:
            value = json_input.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def failing_calls(
    run: AgentRun, note: str
) -> tuple[tuple[ForbiddenCall, ...], list[dict[str, str]]]:
    """The run's failing tool calls as calls that must not recur, and those skipped (why)."""
    forbidden: dict[str, ForbiddenCall] = {}
    skipped: list[dict[str, str]] = []
    for call in run.tool_calls:
        if call.succeeded:
            continue
        arguments = _arguments(call)
        if arguments is None:
            skipped.append(
                {
                    "tool": call.name,
                    "span_id": call.span_id,
                    "reason": "its arguments are not stored (dropped by the redaction policy or "
                    "never sent): forbidding the tool outright would forbid every use of it",
                }
            )
            continue
        rule = ForbiddenCall(call.name, arguments, f"triaged defect, must not recur: {note}")
        forbidden.setdefault(json.dumps([call.name, arguments], sort_keys=True, default=str), rule)
    return tuple(forbidden.values()), skipped


def _entries(data: Any, option: str) -> list[dict[str, Any]]:
    if not isinstance(data, list):
        raise CaseReferenceError(f"{option}: expected a JSON list of {{name, arguments}} objects")
    for index, entry in enumerate(data):
        where = f"{option}[{index}]"
        if not isinstance(entry, dict):
            raise CaseReferenceError(f"{where}: expected an object with name and arguments")
        unknown = sorted(set(entry) - {"name", "arguments", "optional"})
        if unknown:
            raise CaseReferenceError(
                f"{where}.{unknown[0]}: unknown field (name, arguments, optional)"
            )
        if not isinstance(entry.get("name"), str) or not entry["name"].strip():
            raise CaseReferenceError(f"{where}.name: required, a tool name")
        if not isinstance(entry.get("arguments", {}), dict):
            raise CaseReferenceError(f"{where}.arguments: expected an object of argument values")
    return data


def expected_calls(data: Any, option: str = "--expected-calls") -> tuple[ExpectedToolCall, ...]:
    """The reviewer's expected calls; each argument value becomes the one acceptable value.

    Raises:
        CaseReferenceError: not a list of ``{"name", "arguments"?, "optional"?}`` objects.
    """
    return tuple(
        ExpectedToolCall(
            name=entry["name"].strip(),
            arguments={k: [v] for k, v in dict(entry.get("arguments") or {}).items()},
            optional=bool(entry.get("optional", False)),
        )
        for entry in _entries(data, option)
    )


def must_not_recur(
    data: Any, note: str, option: str = "--must-not-recur"
) -> tuple[ForbiddenCall, ...]:
    """The reviewer's calls that must not recur (``arguments`` narrow them; none: the tool).

    Raises:
        CaseReferenceError: not a list of ``{"name", "arguments"?}`` objects.
    """
    return tuple(
        ForbiddenCall(
            entry["name"].strip(),
            dict(entry.get("arguments") or {}),
            f"triaged defect, must not recur: {note}",
        )
        for entry in _entries(data, option)
    )


def slices_of(run: AgentRun, given: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """Slices from the trace (``agent``, ``tool``: the first failing, else the last called).

    ``given`` (the reviewer's ``--slice KEY=VALUE``) adds slices or overrides these.
    """
    tool = next((c.name for c in run.tool_calls if not c.succeeded), None)
    tool = tool or (run.tool_calls[-1].name if run.tool_calls else "none")
    return {
        "origin": "production",
        "agent": run.root_agent or "unknown",
        "tool": tool,
        **dict(given),
    }


def schemas_for(
    case: DatasetItem, source: Dataset, option: str = "--tool-schemas-from"
) -> tuple[dict[str, Any], ...]:
    """The schemas in ``source`` (dataset-wide or its items') of every tool ``case`` names.

    Raises:
        CaseReferenceError: a tool the case names (expected or must not recur) is not defined
            in ``source``.
    """
    named = {c.name for t in case.trajectories for c in t} | {f.name for f in case.forbidden_calls}
    schemas: dict[str, dict[str, Any]] = {}
    for schema in (*source.tool_schemas, *(s for i in source.items for s in i.tool_schemas)):
        name = tool_schema_name(schema)
        if name in named:
            schemas.setdefault(name, schema)
    undefined = sorted(named - set(schemas))
    if undefined:
        raise CaseReferenceError(f"{option} {source.ref}: defines no tool {', '.join(undefined)}")
    return tuple(schemas[n] for n in sorted(schemas))
