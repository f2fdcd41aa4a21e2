"""Aligning a run's executed tool calls with an expected trajectory.

A call satisfies an expected step when the names are equal and, if the step lists arguments,
``check_arguments`` accepts the call's arguments (BFCL semantics, see ``scoring.arguments``). A
step with no arguments constrains the name only. The alignment is a maximum bipartite matching
(each call satisfies at most one step), computed for required steps first so optional steps
never take a call a required step needs (``scoring.alignment``).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.scoring.alignment import Alignment, Schemas, aligned, aligned_by_name
from eval_pipeline.scoring.arguments import ArgumentCheck, check_arguments
from eval_pipeline.traces.model import ToolCall

__all__ = [
    "NO_SCHEMAS",
    "Alignment",
    "Schemas",
    "align",
    "call_check",
    "tool_schemas",
    "trajectories",
]

_MEMO_SIZE = 64
"""Entries kept by each identity memo below before it starts afresh.

The scorers that share an alignment ask for it while scoring one run, so a few runs' worth
is enough. More would keep every entry (its alignment, tuples and key) alive long enough to
reach the collector's oldest generation: with 4,096 entries the cyclic collector ran a full
collection every few thousand runs scored (4-16% of the CPU time in two passes over
10,000 runs), with 64 it hardly ran at all."""
NO_SCHEMAS: Schemas = {}
"""The schemas to align by tool name only (one object, so alignments by name are shared)."""


_schemas_of: dict[int, tuple[tuple[Any, ...], Mapping[str, Mapping[str, Any]]]] = {}


def tool_schemas(item: DatasetItem) -> Mapping[str, Mapping[str, Any]]:
    """The item's tool schemas by name (OpenAI ``{"function": {...}}`` or BFCL flat form).

    One mapping per ``tool_schemas`` tuple (remembered by identity, read-only for callers), so
    the memo of ``call_check`` and ``align`` recognises the schemas across scorers.
    """
    raw = item.tool_schemas
    known = _schemas_of.get(id(raw))
    if known is not None and known[0] is raw:
        return known[1]
    out = _by_name(raw)
    if len(_schemas_of) >= _MEMO_SIZE:
        _schemas_of.clear()
    _schemas_of[id(raw)] = (raw, out)
    return out


def _by_name(raw_schemas: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for raw in raw_schemas:
        inner = raw.get("function")
        function: Mapping[str, Any] = inner if isinstance(inner, Mapping) else raw
        name = function.get("name")
        parameters = function.get("parameters")
        if isinstance(name, str) and isinstance(parameters, Mapping):
            out[name] = parameters
    return out


def call_check(
    call: ToolCall, step: ExpectedToolCall, schemas: Schemas, *, explain: bool = True
) -> ArgumentCheck:
    """Whether ``call`` satisfies ``step`` (name, then arguments when the step lists any).

    ``explain=False`` gives the verdict without the errors (``check_arguments``).
    """
    if call.name != step.name:
        return ArgumentCheck(False, (f"name {call.name!r} is not {step.name!r}",))
    if not step.arguments:
        return ArgumentCheck(True)
    return check_arguments(call.arguments, step.arguments, schemas.get(step.name), explain=explain)


def align(
    calls: Sequence[ToolCall],
    steps: tuple[ExpectedToolCall, ...],
    schemas: Schemas,
    *,
    with_arguments: bool = True,
    trajectory_index: int = 0,
    remember: bool = True,
) -> Alignment:
    """Maximum matching of calls to steps (required steps first); see the module docstring.

    Remembered by identity (calls, steps, schemas): trajectory match and tool-call F1 align
    the same run with the same trajectory, step efficiency and tool correctness too.
    ``remember=False`` for steps no other caller aligns (the memo would only hold them).
    """
    if not remember:
        return _aligned(calls, steps, schemas, with_arguments, trajectory_index)
    key = (id(calls), id(steps), id(schemas), with_arguments, trajectory_index)
    known = _alignments.get(key)
    if known is not None and known[0] is calls and known[1] is steps and known[2] is schemas:
        return known[3]
    alignment = _aligned(calls, steps, schemas, with_arguments, trajectory_index)
    if len(_alignments) >= _MEMO_SIZE:
        _alignments.clear()
    _alignments[key] = (calls, steps, schemas, alignment)
    return alignment


def _aligned(
    calls: Sequence[ToolCall],
    steps: tuple[ExpectedToolCall, ...],
    schemas: Schemas,
    with_arguments: bool,
    trajectory_index: int,
) -> Alignment:
    """``align`` without the memo."""
    if with_arguments:
        return aligned(calls, steps, schemas, trajectory_index)
    return aligned_by_name(calls, steps, trajectory_index)


_alignments: dict[
    tuple[int, int, int, bool, int],
    tuple[Sequence[ToolCall], tuple[ExpectedToolCall, ...], Schemas, Alignment],
] = {}


def trajectories(item: DatasetItem) -> tuple[tuple[ExpectedToolCall, ...], ...]:
    """The item's acceptable trajectories that are non-empty (reference first)."""
    if not item.alternative_trajectories:
        return (item.expected_tool_calls,) if item.expected_tool_calls else ()
    return tuple(t for t in item.trajectories if t)
