"""Fast construction of frozen ``Span`` objects on the ingestion hot path.

A frozen dataclass's ``__init__`` sets each of the ~30 fields through
``object.__setattr__``, which dominated ingestion time. ``Span`` has no ``__post_init__`` and
no slots, so filling the instance dictionary directly gives an identical, equal object.
"""

import dataclasses
from typing import Any

from eval_pipeline.traces.model import Span

_DEFAULTS: dict[str, Any] = {}
_FACTORIES: dict[str, Any] = {}
for _field in dataclasses.fields(Span):
    if _field.default is not dataclasses.MISSING:
        _DEFAULTS[_field.name] = _field.default
    elif _field.default_factory is not dataclasses.MISSING:
        _FACTORIES[_field.name] = _field.default_factory
_REQUIRED = frozenset(f.name for f in dataclasses.fields(Span)) - set(_DEFAULTS) - set(_FACTORIES)


def new_span(values: dict[str, Any]) -> Span:
    """A ``Span`` from field values (missing optional fields take their defaults)."""
    missing = _REQUIRED - values.keys()
    if missing:
        raise TypeError(f"Span needs {sorted(missing)}")
    span = object.__new__(Span)
    state = span.__dict__
    state.update(_DEFAULTS)
    for name, factory in _FACTORIES.items():
        if name not in values:
            state[name] = factory()
    state.update(values)
    return span


def replaced(span: Span, changes: dict[str, Any]) -> Span:
    """``dataclasses.replace`` for spans, without the slow frozen ``__init__``."""
    copy = object.__new__(Span)
    copy.__dict__.update(span.__dict__)
    copy.__dict__.update(changes)
    return copy


_BASE: dict[str, Any] = dict(_DEFAULTS)


def new_span_unchecked(values: dict[str, Any]) -> Span:
    """``new_span`` for callers that always pass every field without a plain default.

    The fields with factory defaults (``attributes``, ``events``, ``resource``) must be in
    ``values``; the hot decode and normalise paths always pass them.
    """
    span = object.__new__(Span)
    state = span.__dict__
    state.update(_BASE)
    state.update(values)
    return span


def span_from_state(state: dict[str, Any]) -> Span:
    """A ``Span`` whose instance dictionary is ``state`` (every field present, owned by it)."""
    span = object.__new__(Span)
    object.__setattr__(span, "__dict__", state)
    return span


RAW_DEFAULTS: dict[str, Any] = dict(_DEFAULTS)
"""Every field with a plain default, for decoders that build a span's state in one dict."""
