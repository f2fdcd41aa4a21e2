"""Type stub of the C matching of calls to steps (``_matching.c``)."""

from collections.abc import Callable, Mapping
from typing import Any

from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.traces.model import ToolCall

def match(
    calls: tuple[ToolCall, ...],
    steps: tuple[ExpectedToolCall, ...],
    schemas: Mapping[str, Mapping[str, Any]],
    check: Callable[[Any, Any, Any, int, int], bool],
) -> dict[int, int] | None:
    """``matching._search``'s owner map (call index -> step index); None: ask it instead."""
