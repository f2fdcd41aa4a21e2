"""Argument checking with the semantics of the Berkeley Function Calling Leaderboard's checker.

An expected call lists, per parameter, every acceptable value (``""`` among them marks the
parameter as omittable). ``check_arguments`` accepts a call's actual arguments when:

- every parameter the schema marks ``required`` is present, and every expected parameter is
  present unless ``""`` is acceptable for it;
- no parameter is present that the schema (when given) or the expected call does not know;
- each value has the declared type exactly (a boolean is not an integer; ``any`` means a
  string), allowing BFCL's coercions: an integer where the schema says ``float``/``number``,
  a tuple where it says ``tuple``/``array``; a value of the acceptable answers' own type when
  that differs from the declared one (a "variable" in BFCL's words) must equal one of them;
- the elements of an array (or tuple) have the schema's ``items`` type exactly, with no
  coercion (``[1, 2]`` is not an array of floats), or the element type of an acceptable list;
  as in BFCL, elements are not type-checked when some acceptable value is not a list (``""``);
- an empty string (after normalisation) or an empty array stands for the omitted parameter,
  accepted where ``""`` is acceptable;
- each value equals one acceptable value, where strings compare after BFCL's normalisation
  (case-folded; spaces and ``,./-_*^`` removed; single quotes as double), lists compare
  element-wise in order (as multisets when the schema marks the array ``uniqueItems`` or
  ``x-unordered``), and dicts compare key by key against acceptable values, recursively;
- a string holding redaction tokens (personal data the trace store replaced, see
  ``traces.redact``) equals an acceptable string that, tokenised the same way, is equal:
  datasets list plain values, stored arguments hold the keyed tokens of them.

Without a schema the expected type is inferred from the acceptable values, so the same rules
hold for datasets (tau-bench, AgentDojo) whose expected calls carry no function definitions.
"""

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from eval_pipeline import json_input
from eval_pipeline.scoring.argument_values import OMITTABLE, value_error

__all__ = ["INVALID", "OMITTABLE", "ArgumentCheck", "check_arguments", "parse_arguments"]


class ArgumentCheck(NamedTuple):
    """Outcome of one argument check: valid, or the errors that made it invalid.

    A named tuple: one is built per call explained, and a frozen dataclass sets each field
    through ``object.__setattr__``.
    """

    valid: bool
    errors: tuple[str, ...] = ()


_VALID = ArgumentCheck(True)
INVALID = ArgumentCheck(False, ("arguments not acceptable",))
"""The verdict of ``check_arguments(..., explain=False)`` on unacceptable arguments."""
_NO_PROPERTIES: Mapping[str, Any] = {}


def parse_arguments(raw: Any) -> dict[str, Any] | None:
    """A call's arguments as a dict (JSON text is decoded); None when they are not an object."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return {}
        try:
            raw = json_input.loads(text)
        except json.JSONDecodeError:
            return None
    return dict(raw) if isinstance(raw, Mapping) else None


def check_arguments(
    actual: Any,
    expected: Mapping[str, Sequence[Any]],
    schema: Mapping[str, Any] | None = None,
    *,
    explain: bool = True,
) -> ArgumentCheck:
    """Check a call's arguments against the acceptable values (see the module docstring).

    Args:
        actual: the call's arguments (a dict, or JSON text of one).
        expected: parameter -> list of acceptable values (``""`` = may be omitted).
        schema: the function's ``parameters`` object (``properties``, ``required``), if known.
        explain: False to stop at the first problem without describing it (``INVALID``):
            matching calls to steps needs only the verdict, and most pairs it tries fail.

    Returns:
        The check; ``errors`` name the parameter and what was wrong with it.
    """
    # A dict is read as it is (nothing here changes it); other forms are parsed first.
    arguments = actual if type(actual) is dict else parse_arguments(actual)
    if arguments is None:
        return ArgumentCheck(False, (f"arguments are not a JSON object: {actual!r}",))
    properties: Mapping[str, Any] = (
        (schema.get("properties") or _NO_PROPERTIES) if schema else _NO_PROPERTIES
    )
    required: Sequence[str] = (schema.get("required") or ()) if schema else ()
    problems = _problems(arguments, expected, properties, required, explain)
    if not explain:
        return _VALID if next(problems, None) is None else INVALID
    errors = tuple(problems)
    return ArgumentCheck(not errors, errors) if errors else _VALID


def _problems(
    arguments: Mapping[str, Any],
    expected: Mapping[str, Sequence[Any]],
    properties: Mapping[str, Any],
    required: Sequence[str],
    explain: bool,
) -> Iterator[str]:
    """Each problem with the call's arguments, in order, found as they are asked for.

    Missing required parameters, then each present parameter's (unknown, or a value none of
    its acceptable values matches), then expected parameters missing and not omittable.
    """
    for name in required:
        if name not in arguments:
            yield f"missing required parameter {name!r}"
    for name, value in arguments.items():
        acceptable = expected.get(name)
        if acceptable is None or (properties and name not in properties):
            yield f"unexpected parameter {name!r}"
            continue
        if _verbatim(value, acceptable):
            continue
        problem = value_error(value, acceptable, properties.get(name), explain=explain)
        if problem:
            yield f"parameter {name!r}: {problem}"
    for name, acceptable in expected.items():
        if name not in arguments and OMITTABLE not in acceptable and name not in required:
            yield f"missing parameter {name!r} (not omittable)"


def _verbatim(value: Any, acceptable: Sequence[Any]) -> bool:
    """Whether an acceptable value is identical to ``value`` (most values of most calls are).

    Identical: the same types all the way down and equal, and not the omission. Such a value
    passes every rule of ``value_error``, which need not be asked.
    """
    if type(value) is str:
        if value:
            for option in acceptable:
                if type(option) is str and option == value:
                    return True
        return False
    return any(_identical(value, option) for option in acceptable)


def _identical(value: Any, option: Any) -> bool:
    if type(value) is not type(option):
        return False
    if isinstance(value, list):
        return len(value) == len(option) and all(map(_identical, value, option))
    if isinstance(value, dict):
        return False  # acceptable dicts list options per key: the full check compares them
    return bool(value == option) and not (isinstance(value, str) and value == OMITTABLE)
