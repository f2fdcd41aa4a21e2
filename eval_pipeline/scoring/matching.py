"""Aligning a run's executed tool calls with an expected trajectory.

A call satisfies an expected step when the names are equal and, if the step lists arguments,
``check_arguments`` accepts the call's arguments (BFCL semantics, see ``scoring.arguments``). A
step with no arguments constrains the name only. The alignment is a maximum bipartite matching
(each call satisfies at most one step), computed for required steps first so optional steps
never take a call a required step needs.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.scoring.arguments import ArgumentCheck, check_arguments
from eval_pipeline.traces.model import ToolCall

Schemas = Mapping[str, Mapping[str, Any]]
"""Tool name -> the function's ``parameters`` schema."""


@dataclass(frozen=True)
class Alignment:
    """How a run's calls line up with one trajectory.

    ``pairs`` holds (step index, call index); ``missing`` the required steps no call satisfied;
    ``extra`` the calls that satisfied no step.
    """

    trajectory_index: int
    steps: tuple[ExpectedToolCall, ...]
    pairs: tuple[tuple[int, int], ...]
    missing: tuple[int, ...]
    extra: tuple[int, ...]

    @property
    def required(self) -> int:
        """Number of required (non-optional) steps."""
        return sum(1 for step in self.steps if not step.optional)

    @property
    def matched_required(self) -> int:
        """Required steps some call satisfied."""
        return sum(1 for step_index, _ in self.pairs if not self.steps[step_index].optional)


def tool_schemas(item: DatasetItem) -> dict[str, Mapping[str, Any]]:
    """The item's tool schemas by name (OpenAI ``{"function": {...}}`` or BFCL flat form)."""
    out: dict[str, Mapping[str, Any]] = {}
    for raw in item.tool_schemas:
        inner = raw.get("function")
        function: Mapping[str, Any] = inner if isinstance(inner, Mapping) else raw
        name = function.get("name")
        parameters = function.get("parameters")
        if isinstance(name, str) and isinstance(parameters, Mapping):
            out[name] = parameters
    return out


def call_check(call: ToolCall, step: ExpectedToolCall, schemas: Schemas) -> ArgumentCheck:
    """Whether ``call`` satisfies ``step`` (name, then arguments when the step lists any)."""
    if call.name != step.name:
        return ArgumentCheck(False, (f"name {call.name!r} is not {step.name!r}",))
    if not step.arguments:
        return ArgumentCheck(True)
    return check_arguments(call.arguments, step.arguments, schemas.get(step.name))


def align(
    calls: Sequence[ToolCall],
    steps: Sequence[ExpectedToolCall],
    schemas: Schemas,
    *,
    with_arguments: bool = True,
    trajectory_index: int = 0,
) -> Alignment:
    """Maximum matching of calls to steps (required steps first); see the module docstring."""
    steps = tuple(steps)
    fits: list[list[int]] = []
    for step in steps:
        options = []
        for index, call in enumerate(calls):
            if call.name != step.name:
                continue
            if with_arguments and not call_check(call, step, schemas).valid:
                continue
            options.append(index)
        fits.append(options)
    owner: dict[int, int] = {}

    def augment(step_index: int, seen: set[int]) -> bool:
        for call_index in fits[step_index]:
            if call_index in seen:
                continue
            seen.add(call_index)
            if call_index not in owner or augment(owner[call_index], seen):
                owner[call_index] = step_index
                return True
        return False

    order = [i for i, s in enumerate(steps) if not s.optional]
    order += [i for i, s in enumerate(steps) if s.optional]
    for step_index in order:
        augment(step_index, set())
    pairs = tuple(sorted((step, call) for call, step in owner.items()))
    matched_steps = {step for step, _ in pairs}
    return Alignment(
        trajectory_index=trajectory_index,
        steps=steps,
        pairs=pairs,
        missing=tuple(i for i, s in enumerate(steps) if not s.optional and i not in matched_steps),
        extra=tuple(i for i in range(len(calls)) if i not in owner),
    )


def trajectories(item: DatasetItem) -> tuple[tuple[ExpectedToolCall, ...], ...]:
    """The item's acceptable trajectories that are non-empty (reference first)."""
    return tuple(t for t in item.trajectories if t)
