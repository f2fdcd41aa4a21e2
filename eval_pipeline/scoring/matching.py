"""Aligning a run's executed tool calls with an expected trajectory.

A call satisfies an expected step when the names are equal and, if the step lists arguments,
``check_arguments`` accepts the call's arguments (BFCL semantics, see ``scoring.arguments``). A
step with no arguments constrains the name only. The alignment is a maximum bipartite matching
(each call satisfies at most one step), computed for required steps first so optional steps
never take a call a required step needs.
"""

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.scoring.arguments import ArgumentCheck, check_arguments
from eval_pipeline.traces.model import ToolCall

_native_align: Callable[..., "Alignment | None"] | None
try:
    from eval_pipeline.scoring._matching import align as _native_align
except ImportError:  # not built (``setup.py build_ext``): the Python functions below align
    _native_align = None

Schemas = Mapping[str, Mapping[str, Any]]
"""Tool name -> the function's ``parameters`` schema."""
_MEMO_SIZE = 64
"""Entries kept by each identity memo below before it starts afresh.

The scorers that share an alignment ask for it while scoring one run, so a few runs' worth
is enough. More would keep every entry (its alignment, tuples and key) alive long enough to
reach the collector's oldest generation: with 4,096 entries the cyclic collector ran a full
collection every few thousand runs scored (4-16% of the CPU time in two passes over
10,000 runs), with 64 it hardly ran at all."""
NO_SCHEMAS: Schemas = {}
"""The schemas to align by tool name only (one object, so alignments by name are shared)."""


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

    @cached_property
    def required(self) -> int:
        """Number of required (non-optional) steps."""
        return sum(1 for step in self.steps if not step.optional)

    @cached_property
    def matched_required(self) -> int:
        """Required steps some call satisfied."""
        return sum(1 for step_index, _ in self.pairs if not self.steps[step_index].optional)


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
    steps: Sequence[ExpectedToolCall],
    schemas: Schemas,
    *,
    with_arguments: bool = True,
    trajectory_index: int = 0,
    remember: bool = True,
) -> Alignment:
    """Maximum matching of calls to steps (required steps first); see the module docstring.

    Remembered by identity (calls, steps, schemas): trajectory match and tool-call F1 align
    the same run with the same trajectory, step efficiency and tool correctness too. A tuple
    of steps is known by its own identity, other sequences by their steps'. ``remember=False``
    for steps no other caller aligns (the memo would only hold them).
    """
    if not remember:
        return _aligned(calls, tuple(steps), schemas, with_arguments, trajectory_index)
    if type(steps) is tuple:
        key: tuple[Any, ...] = (
            _BY_TUPLE,
            id(calls),
            id(schemas),
            with_arguments,
            trajectory_index,
            id(steps),
        )
        known = _alignments.get(key)
        if known is not None and known[0] is calls and known[1] is schemas and known[2] is steps:
            return known[3]
    else:
        steps = tuple(steps)
        key = (id(calls), id(schemas), with_arguments, trajectory_index, *map(id, steps))
        known = _alignments.get(key)
        if (
            known is not None
            and known[0] is calls
            and known[1] is schemas
            and all(map(operator.is_, known[2], steps))
        ):
            return known[3]
    alignment = _aligned(calls, steps, schemas, with_arguments, trajectory_index)
    if len(_alignments) >= _MEMO_SIZE:
        _alignments.clear()
    _alignments[key] = (calls, schemas, steps, alignment)
    return alignment


_BY_TUPLE = "steps tuple"
"""First element of the memo's keys of tuples of steps (the others start with an id)."""


def _aligned(
    calls: Sequence[ToolCall],
    steps: tuple[ExpectedToolCall, ...],
    schemas: Schemas,
    with_arguments: bool,
    trajectory_index: int,
) -> Alignment:
    """``align`` without the memo: in C where built, else ``_align`` / ``_align_by_name``."""
    alignment = (
        _native_align(Alignment, calls, steps, schemas, _fits, with_arguments, trajectory_index)
        if _native_align is not None and type(calls) is tuple
        else None
    )
    if alignment is None:
        alignment = (
            _align(calls, steps, schemas, with_arguments, trajectory_index)
            if with_arguments
            else _align_by_name(calls, steps, trajectory_index)
        )
    return alignment


_alignments: dict[tuple[Any, ...], tuple[Any, Any, tuple[ExpectedToolCall, ...], Alignment]] = {}


def _align(
    calls: Sequence[ToolCall],
    steps: tuple[ExpectedToolCall, ...],
    schemas: Schemas,
    with_arguments: bool,
    trajectory_index: int,
) -> Alignment:
    return _alignment(
        calls, steps, _search(calls, steps, schemas, with_arguments), trajectory_index
    )


def _fits(
    calls: Sequence[ToolCall],
    steps: Sequence[ExpectedToolCall],
    schemas: Schemas,
    step_index: int,
    call_index: int,
) -> bool:
    """Whether a call satisfies a step of its tool that lists arguments (``check_arguments``)."""
    step = steps[step_index]
    return check_arguments(
        calls[call_index].arguments, step.arguments, schemas.get(step.name), explain=False
    ).valid


def _search(
    calls: Sequence[ToolCall],
    steps: tuple[ExpectedToolCall, ...],
    schemas: Schemas,
    with_arguments: bool,
) -> dict[int, int]:
    """The matching (call index -> step index) of ``_align``, in Python.

    The reference of ``_matching.c``, and the matching wherever it is not built or leaves a run.
    """
    by_name: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        by_name.setdefault(call.name, []).append(index)
    search = _Search(
        calls, steps, schemas, with_arguments, [by_name.get(step.name, ()) for step in steps]
    )
    order = [i for i, s in enumerate(steps) if not s.optional]
    order += [i for i, s in enumerate(steps) if s.optional]
    for step_index in order:
        search.augment(step_index, set())
    return search.owner


class _Search:
    """One augmenting-path search for ``_align``: calls to steps, each call to one step.

    An object rather than nested functions: a recursive closure is a reference cycle, which
    only the cyclic garbage collector frees, and one made per alignment of every run made it
    collect often. Whether a call fits a step is asked only when the search reaches that pair
    (most searches stop at the first fitting call), and at most once per pair.
    """

    __slots__ = ("calls", "candidates", "fits", "owner", "schemas", "steps", "with_arguments")

    def __init__(
        self,
        calls: Sequence[ToolCall],
        steps: tuple[ExpectedToolCall, ...],
        schemas: Schemas,
        with_arguments: bool,
        candidates: list[Sequence[int]],
    ) -> None:
        self.calls = calls
        self.steps = steps
        self.schemas = schemas
        self.with_arguments = with_arguments
        self.candidates = candidates
        self.fits: dict[tuple[int, int], bool] = {}
        self.owner: dict[int, int] = {}

    def fit(self, step_index: int, call_index: int) -> bool:
        """Whether call ``call_index`` satisfies step ``step_index`` (name known equal)."""
        known = self.fits.get((step_index, call_index))
        if known is None:
            step = self.steps[step_index]
            known = not step.arguments or (
                check_arguments(
                    self.calls[call_index].arguments,
                    step.arguments,
                    self.schemas.get(step.name),
                    explain=False,
                ).valid
            )
            self.fits[(step_index, call_index)] = known
        return known

    def augment(self, step_index: int, seen: set[int]) -> bool:
        """Give step ``step_index`` a call, moving earlier steps on where needed."""
        owner = self.owner
        for call_index in self.candidates[step_index]:
            if call_index in seen or (self.with_arguments and not self.fit(step_index, call_index)):
                continue
            seen.add(call_index)
            if call_index not in owner or self.augment(owner[call_index], seen):
                owner[call_index] = step_index
                return True
        return False


def _align_by_name(
    calls: Sequence[ToolCall], steps: tuple[ExpectedToolCall, ...], trajectory_index: int
) -> Alignment:
    """``_align`` without arguments, in one pass per tool name (the same alignment).

    Steps of one name fit exactly the calls of that name, so the augmenting search of
    ``_align`` gives the first ``m`` of them, in its order (required steps first), the first
    ``m`` calls in reverse: the ``j``-th step gets call ``m - 1 - j``, where ``m`` is the
    smaller of the two counts. (Each new step takes the first call, and each step before it
    moves one call on; a step beyond ``m`` finds no free call and changes nothing.)
    """
    by_name: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        by_name.setdefault(call.name, []).append(index)
    queued: dict[str, list[int]] = {}
    optional: list[int] = []
    for step_index, step in enumerate(steps):
        if step.optional:
            optional.append(step_index)
        else:
            queued.setdefault(step.name, []).append(step_index)
    for step_index in optional:
        queued.setdefault(steps[step_index].name, []).append(step_index)
    owner: dict[int, int] = {}
    for name, step_indices in queued.items():
        free = by_name.get(name, ())
        matched = min(len(step_indices), len(free))
        for j in range(matched):
            owner[free[matched - 1 - j]] = step_indices[j]
    return _alignment(calls, steps, owner, trajectory_index)


def _alignment(
    calls: Sequence[ToolCall],
    steps: tuple[ExpectedToolCall, ...],
    owner: dict[int, int],
    trajectory_index: int,
) -> Alignment:
    """The alignment of a matching (call index -> step index).

    Built without the frozen dataclass's constructor (the same fields), with its counts of
    required steps set as ``cached_property`` would cache them: every scorer reads them.
    """
    matched = set(owner.values())
    missing: list[int] = []
    required = 0
    for index, step in enumerate(steps):
        if not step.optional:
            required += 1
            if index not in matched:
                missing.append(index)
    alignment = object.__new__(Alignment)
    alignment.__dict__.update(
        trajectory_index=trajectory_index,
        steps=steps,
        pairs=tuple(sorted([(step, call) for call, step in owner.items()])),
        missing=tuple(missing),
        extra=tuple([i for i in range(len(calls)) if i not in owner]),
        # Each step is matched at most once, so the required steps matched are those not
        # missing.
        required=required,
        matched_required=required - len(missing),
    )
    return alignment


def trajectories(item: DatasetItem) -> tuple[tuple[ExpectedToolCall, ...], ...]:
    """The item's acceptable trajectories that are non-empty (reference first)."""
    if not item.alternative_trajectories:
        return (item.expected_tool_calls,) if item.expected_tool_calls else ()
    return tuple(t for t in item.trajectories if t)
