"""Alignments of a run's calls with a trajectory's steps.

``aligned`` is the maximum matching of calls to steps by an augmenting-path search over
(step, call) pairs of one tool name, required steps first, a pair fitting when the step lists
no arguments or ``check_arguments`` accepts the call's; ``aligned_by_name`` is the same
alignment without arguments, in one pass per name.
"""

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.scoring.arguments import check_arguments
from eval_pipeline.traces.model import ToolCall

Schemas = Mapping[str, Mapping[str, Any]]
"""Tool name -> the function's ``parameters`` schema."""


class Alignment(NamedTuple):
    """How a run's calls line up with one trajectory.

    ``pairs`` holds (step index, call index); ``missing`` the required steps no call satisfied;
    ``extra`` the calls that satisfied no step. ``required`` counts the trajectory's required
    (non-optional) steps, ``matched_required`` those some call satisfied.
    """

    trajectory_index: int
    steps: tuple[ExpectedToolCall, ...]
    pairs: tuple[tuple[int, int], ...]
    missing: tuple[int, ...]
    extra: tuple[int, ...]
    required: int
    matched_required: int


def aligned(
    calls: Sequence[ToolCall],
    steps: tuple[ExpectedToolCall, ...],
    schemas: Schemas,
    trajectory_index: int,
) -> Alignment:
    """The alignment of the augmenting-path search (``owners``)."""
    return alignment_of(calls, steps, owners(calls, steps, schemas), trajectory_index)


def owners(
    calls: Sequence[ToolCall], steps: tuple[ExpectedToolCall, ...], schemas: Schemas
) -> dict[int, int]:
    """The matching (call index -> step index): required steps first, then optional ones."""
    by_name: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        by_name.setdefault(call.name, []).append(index)
    search = _Search(calls, steps, schemas, [by_name.get(step.name, ()) for step in steps])
    order = [i for i, s in enumerate(steps) if not s.optional]
    order += [i for i, s in enumerate(steps) if s.optional]
    for step_index in order:
        search.augment(step_index, set())
    return search.owner


class _Search:
    """One augmenting-path search for ``owners``: calls to steps, each call to one step.

    An object rather than nested functions: a recursive closure is a reference cycle, which
    only the cyclic garbage collector frees, and one made per alignment of every run made it
    collect often. Whether a call fits a step is asked only when the search reaches that pair
    (most searches stop at the first fitting call).
    """

    __slots__ = ("calls", "candidates", "owner", "schemas", "steps")

    def __init__(
        self,
        calls: Sequence[ToolCall],
        steps: tuple[ExpectedToolCall, ...],
        schemas: Schemas,
        candidates: list[Sequence[int]],
    ) -> None:
        self.calls = calls
        self.steps = steps
        self.schemas = schemas
        self.candidates = candidates
        self.owner: dict[int, int] = {}

    def augment(self, step_index: int, seen: set[int]) -> bool:
        """Give step ``step_index`` a call, moving earlier steps on where needed."""
        owner = self.owner
        step = self.steps[step_index]
        for call_index in self.candidates[step_index]:
            if call_index in seen or not fits(self.calls[call_index], step, self.schemas):
                continue
            seen.add(call_index)
            if call_index not in owner or self.augment(owner[call_index], seen):
                owner[call_index] = step_index
                return True
        return False


_FITS_SIZE = 256
"""Verdicts ``fits`` keeps, the oldest dropped first (a run asks a dozen or so)."""
_fits: dict[tuple[int, int, int], tuple[ToolCall, ExpectedToolCall, Schemas, bool]] = {}


def fits(call: ToolCall, step: ExpectedToolCall, schemas: Schemas) -> bool:
    """Whether ``call`` satisfies ``step`` of the same tool (``check_arguments``'s verdict).

    Remembered by identity (call, step, schemas) for the last few runs: argument correctness
    aligns a run's calls with the steps that list arguments, then tool-call F1 and trajectory
    match align them with the whole trajectory, asking of the same pairs.
    """
    if not step.arguments:
        return True
    key = (id(call), id(step), id(schemas))
    known = _fits.get(key)
    if known is not None and known[0] is call and known[1] is step and known[2] is schemas:
        return known[3]
    verdict = check_arguments(
        call.arguments, step.arguments, schemas.get(step.name), explain=False
    ).valid
    if len(_fits) >= _FITS_SIZE:
        del _fits[next(iter(_fits))]  # the oldest: the run being scored keeps its verdicts
    _fits[key] = (call, step, schemas, verdict)
    return verdict


def aligned_by_name(
    calls: Sequence[ToolCall], steps: tuple[ExpectedToolCall, ...], trajectory_index: int
) -> Alignment:
    """``aligned`` without arguments, in one pass per tool name (the same alignment).

    Steps of one name fit exactly the calls of that name, so the augmenting search of
    ``aligned`` gives the first ``m`` of them, in its order (required steps first), the first
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
    return alignment_of(calls, steps, owner, trajectory_index)


def alignment_of(
    calls: Sequence[ToolCall],
    steps: tuple[ExpectedToolCall, ...],
    owner: dict[int, int],
    trajectory_index: int,
) -> Alignment:
    """The alignment of a matching (call index -> step index)."""
    matched = set(owner.values())
    missing: list[int] = []
    required = 0
    for index, step in enumerate(steps):
        if not step.optional:
            required += 1
            if index not in matched:
                missing.append(index)
    # Each step is matched at most once: the required steps matched are those not missing.
    return Alignment(
        trajectory_index,
        steps,
        tuple(sorted([(step, call) for call, step in owner.items()])),
        tuple(missing),
        tuple([i for i in range(len(calls)) if i not in owner]),
        required,
        required - len(missing),
    )
