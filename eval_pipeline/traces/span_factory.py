"""Fast construction of frozen ``Span`` objects on the ingestion hot path.

A frozen dataclass's ``__init__`` sets each of the ~30 fields through
``object.__setattr__``, which dominated ingestion time. ``Span`` has no ``__post_init__`` and
no slots, so an instance whose dictionary holds every field is identical to (and equal to)
one built by ``__init__``.
"""

import dataclasses
from typing import Any

from eval_pipeline.traces.model import Span

RAW_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in dataclasses.fields(Span) if f.default is not dataclasses.MISSING
}
"""Every field with a plain default, for decoders that build a span's state in one dict.

The fields with factory defaults (``attributes``, ``events``, ``resource``) and the required
ones must be given by the caller.
"""


def span_from_state(state: dict[str, Any]) -> Span:
    """A ``Span`` whose instance dictionary is ``state`` (every field present, owned by it)."""
    span = object.__new__(Span)
    object.__setattr__(span, "__dict__", state)
    return span
