"""Whether one argument value equals one of its acceptable values (BFCL's checker).

``value_error`` says why a value matches none of a parameter's acceptable values, or None when
one matches. The rules (see ``scoring.arguments`` for a whole call): an empty string or array
stands for the omitted parameter where ``""`` is acceptable; a value has the declared type
exactly, with BFCL's coercions (an integer for a float, a tuple for an array), or is a
"variable" of the acceptable values' own type that must equal one of them verbatim; an array's
elements have the schema's ``items`` type; strings compare after BFCL's normalisation, or as
redaction tokens of each other; lists compare in order (as multisets where the schema says
``uniqueItems`` or ``x-unordered``) and dicts key by key, recursively.
"""

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from eval_pipeline.traces.redact.tokens import holds_token, tokenised

_STRIP = re.compile(r"[ ,./\-_*^]")
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "float": (float,),
    "number": (float, int),
    "boolean": (bool,),
    "array": (list,),
    "tuple": (list,),
    "dict": (dict,),
    "object": (dict,),
    "any": (str,),
}
OMITTABLE = ""
"""The acceptable value that marks a parameter as omittable (BFCL's convention)."""


@lru_cache(maxsize=65536)
def normalise_string(text: str) -> str:
    """BFCL's string normalisation: drop spaces and ``,./-_*^``, lower-case, ``'`` as ``"``."""
    return _STRIP.sub("", text).lower().replace("'", '"')


def value_error(
    value: Any,
    acceptable: Sequence[Any],
    schema: Mapping[str, Any] | None,
    *,
    explain: bool = True,
) -> str | None:
    """Why ``value`` matches none of the ``acceptable`` values, or None when one matches.

    With ``explain=False`` the reason is ``"no"`` (cheaper: nothing is formatted).
    """
    candidates = [a for a in acceptable if not (isinstance(a, str) and a == OMITTABLE)]
    stated = schema.get("type") if schema else None
    if len(candidates) < len(acceptable) and _is_empty(value, stated):
        return None
    if not candidates:
        return f"got {value!r} for a parameter that should be omitted" if explain else "no"
    if type(value) is str and isinstance(candidates[0], str) and stated in _STRING_TYPES:
        return _string_error(value, candidates, explain)
    return _typed_value_error(value, candidates, acceptable, stated, schema, explain)


def _typed_value_error(
    value: Any,
    candidates: list[Any],
    acceptable: Sequence[Any],
    stated: Any,
    schema: Mapping[str, Any] | None,
    explain: bool,
) -> str | None:
    """``value_error`` past the omission rules: types, coercions, then equality."""
    declared = str(stated or _inferred_type(candidates))
    value = _coerce(value, declared)
    variable = stated is not None and not _has_type(candidates[0], declared)
    if not _has_type(value, declared):
        if not any(_same_kind(value, c) for c in candidates):
            if not explain:
                return "no"
            return f"expected type {declared}, got {type(value).__name__} ({value!r})"
        variable = True
    elif stated is not None and isinstance(value, list):
        problem = _element_type_error(value, acceptable, schema)
        if problem:
            return problem
    if variable:
        # A variable's value is compared as it is, without the string normalisation.
        if any(value == c for c in candidates):
            return None
    elif any(_equal(value, c, declared, schema) for c in candidates):
        return None
    return f"{value!r} is not one of {candidates!r}" if explain else "no"


_STRING_TYPES = (None, "string", "any")
"""Declared types under which a string value against string candidates takes the short path."""


def _string_error(value: str, candidates: list[Any], explain: bool) -> str | None:
    """``value_error`` for a string against string candidates, the common case, decided directly.

    The general path reaches exactly these comparisons for it (no coercion, no "variable"):
    normalised equality, tokenised equality for redacted text, plain equality otherwise.
    """
    normalised = normalise_string(value)
    for candidate in candidates:
        if isinstance(candidate, str):
            if normalise_string(candidate) == normalised:
                return None
            if holds_token(value) and normalised == normalise_string(tokenised(candidate)):
                return None
        elif value == candidate:
            return None
    return f"{value!r} is not one of {candidates!r}" if explain else "no"


def _element_type_error(
    value: list[Any], acceptable: Sequence[Any], schema: Mapping[str, Any] | None
) -> str | None:
    """Why the elements of an array do not have the schema's ``items`` type (None: they do)."""
    item_type = str(((schema or {}).get("items") or {}).get("type") or "")
    allowed = _TYPES.get(item_type)
    if allowed is None or any(not isinstance(a, list | tuple) for a in acceptable):
        return None
    for option in acceptable:
        sample = next((type(e) for e in option if not _is_omittable(e)), None)
        if all(_exact_type(e, allowed) or type(e) is sample for e in value):
            return None
    return f"elements of {value!r} must be of type {item_type}"


def _exact_type(value: Any, allowed: tuple[type, ...]) -> bool:
    return type(value) in allowed or (type(value) is tuple and list in allowed)


def _is_empty(value: Any, stated: Any) -> bool:
    """An empty value of the declared type: BFCL reads it as the omitted parameter."""
    if isinstance(value, str):
        return stated in (None, "string", "any") and not normalise_string(value)
    return isinstance(value, list | tuple) and not value and stated in (None, "array", "tuple")


def _is_omittable(value: Any) -> bool:
    return isinstance(value, str) and value == OMITTABLE


def _inferred_type(candidates: list[Any]) -> str:
    sample = candidates[0]
    if isinstance(sample, bool):
        return "boolean"
    if isinstance(sample, int):
        # An expected float list like [300000] still means "a number".
        return "number"
    if isinstance(sample, float):
        return "number"
    if isinstance(sample, str):
        return "string"
    if isinstance(sample, list | tuple):
        return "array"
    if isinstance(sample, dict):
        return "dict"
    return "unknown"


def _coerce(value: Any, declared: str) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if declared in ("float", "number") and type(value) is int:
        return float(value)
    return value


def _has_type(value: Any, declared: str) -> bool:
    allowed = _TYPES.get(declared)
    if allowed is None:
        return True
    if isinstance(value, bool) and bool not in allowed:
        return False
    return isinstance(value, allowed)


def _same_kind(value: Any, candidate: Any) -> bool:
    if isinstance(value, list) and isinstance(candidate, list | tuple):
        return True
    return type(value) is type(candidate)


def _equal(value: Any, candidate: Any, declared: str, schema: Mapping[str, Any] | None) -> bool:
    if isinstance(value, str) and isinstance(candidate, str):
        if normalise_string(value) == normalise_string(candidate):
            return True
        return holds_token(value) and normalise_string(value) == normalise_string(
            tokenised(candidate)
        )
    if isinstance(value, bool) or isinstance(candidate, bool):
        return isinstance(value, bool) and isinstance(candidate, bool) and value == candidate
    if isinstance(value, dict) and isinstance(candidate, dict):
        return _dict_equal(value, candidate, schema)
    if isinstance(value, list) and isinstance(candidate, list | tuple):
        return _list_equal(value, list(candidate), schema)
    if isinstance(value, int | float) and isinstance(candidate, int | float):
        return float(value) == float(candidate)
    return bool(value == candidate)


def _dict_equal(value: dict[str, Any], candidate: dict[str, Any], schema: Any) -> bool:
    props: Mapping[str, Any] = (schema or {}).get("properties") or {}
    for key, item in value.items():
        if key not in candidate:
            return False
        options = candidate[key]
        options = list(options) if isinstance(options, list) else [options]
        if value_error(item, options, props.get(key), explain=False) is not None:
            return False
    return all(
        key in value or (isinstance(options, list) and OMITTABLE in options)
        for key, options in candidate.items()
    )


_JUST_STR = frozenset({str})


def _list_equal(value: list[Any], candidate: list[Any], schema: Any) -> bool:
    if len(value) != len(candidate):
        return False
    item_schema = (schema or {}).get("items")
    item_type = str((item_schema or {}).get("type") or "")
    unordered = bool((schema or {}).get("uniqueItems") or (schema or {}).get("x-unordered"))
    if (
        not unordered
        and _JUST_STR.issuperset(map(type, value))
        and _JUST_STR.issuperset(map(type, candidate))
        and "[" not in "".join(value)
    ):
        # Plain strings in order, none holding a redaction token: what ``same`` compares is
        # their normalised forms, pair by pair.
        return list(map(normalise_string, value)) == list(map(normalise_string, candidate))

    def same(a: Any, b: Any) -> bool:
        a = _coerce(a, item_type)
        if isinstance(a, dict) and isinstance(b, dict):
            return _dict_equal(a, b, item_schema)
        return _equal(a, b, item_type, item_schema)

    if not unordered:
        return all(same(a, b) for a, b in zip(value, candidate, strict=True))
    remaining = list(candidate)
    for element in value:
        match = next((i for i, b in enumerate(remaining) if same(element, b)), None)
        if match is None:
            return False
        remaining.pop(match)
    return True
