"""Compact JSON text for the span store, encoded with the C encoder built once.

``json.JSONEncoder.encode`` builds a new C encoder (and a circular-reference table) on every
call, which costs as much as encoding a small attribute mapping. ``dumps`` reuses one encoder
with the same settings (no ASCII escaping, ``,``/``:`` separators, NaN allowed), so its text is
identical. Values it cannot encode (unknown types, circular structures) go through the standard
encoder, which raises its usual error.
"""

import json
from collections.abc import Sequence
from itertools import repeat
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

_STANDARD = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_FAST = (
    c_make_encoder(None, _STANDARD.default, encode_basestring, None, ":", ",", False, False, True)
    if c_make_encoder is not None
    else None
)

_JOIN = "".join


def dumps(value: Any) -> str:
    """``value`` as compact JSON text (same text as ``_STANDARD.encode``)."""
    if _FAST is not None:
        try:
            return "".join(_FAST(value, 0))
        except (TypeError, ValueError, RecursionError):
            pass
    return _STANDARD.encode(value)


def dumps_many(values: Sequence[Any]) -> list[str]:
    """``[dumps(v) for v in values]``, in one C-level pass when every value encodes."""
    if _FAST is not None:
        try:
            return list(map(_JOIN, map(_FAST, values, repeat(0, len(values)))))
        except (TypeError, ValueError, RecursionError):
            pass
    return [dumps(value) for value in values]
