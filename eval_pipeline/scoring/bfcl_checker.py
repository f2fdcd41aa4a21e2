"""The Berkeley Function Calling Leaderboard's verdict on a whole model answer.

BFCL judges an answer (every call the model made for one question) as valid or not; its rules,
from the leaderboard's AST checker, in this project's words:

- the answer makes exactly as many calls as the possible answer lists (one for the simple and
  multiple categories, one per expected call for the parallel ones): a missing or a repeated
  call fails the answer, however right the other calls are;
- every expected call is matched by a distinct call of the answer, in any order (parallel
  calls are unordered), with the function's name equal and its arguments accepted by
  ``check_arguments`` (types, elements inside arrays, acceptable values, omittable and required
  parameters, string normalisation; see ``scoring.arguments``); an expected call without
  parameters accepts no argument;
- the pairing is greedy, as the checker's: expected calls in the possible answer's order, each
  taking the first call not yet taken that it accepts. When one call satisfies two expected
  calls, this can fail an answer a maximum matching would pass; the leaderboard fails it.

``argument_correctness`` scores the share of expected calls matched (maximum matching,
``scoring.matching``); this module gives the all-or-nothing verdict the leaderboard reports.
"""

from collections.abc import Sequence

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.arguments import ArgumentCheck, check_arguments
from eval_pipeline.scoring.matching import tool_schemas
from eval_pipeline.traces.model import ToolCall


def check_answer(calls: Sequence[ToolCall], item: DatasetItem) -> ArgumentCheck:
    """BFCL's verdict on ``calls`` as the whole answer to ``item`` (see the module docstring)."""
    expected = item.expected_tool_calls
    if len(calls) != len(expected):
        return ArgumentCheck(
            False, (f"wrong number of calls: {len(calls)} made, {len(expected)} expected",)
        )
    schemas = tool_schemas(item)
    taken: set[int] = set()
    for step in expected:
        schema = schemas.get(step.name)
        errors: list[str] = []
        for index, call in enumerate(calls):
            if index in taken or call.name != step.name:
                continue
            check = check_arguments(call.arguments, step.arguments, schema)
            if check.valid:
                taken.add(index)
                break
            errors.extend(check.errors)
        else:
            found = errors[0] if errors else "no call of it among the calls not yet matched"
            return ArgumentCheck(False, (f"{step.name}: {found}",))
    return ArgumentCheck(True)
