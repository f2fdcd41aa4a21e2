"""Type stub of the C alignment of calls with steps (``_matching.c``)."""

from collections.abc import Callable, Mapping
from typing import Any

from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.traces.model import ToolCall

def align(
    cls: type[Any],
    calls: tuple[ToolCall, ...],
    steps: tuple[ExpectedToolCall, ...],
    schemas: Mapping[str, Mapping[str, Any]],
    check: Callable[[Any, Any, Any, int, int], bool],
    with_arguments: bool,
    trajectory_index: int,
) -> Any:
    """``matching``'s ``Alignment`` (of type ``cls``); None: align in Python instead."""
