"""Type stub of the C score rows (``_rows.c``)."""

from collections.abc import Mapping, Sequence
from typing import Any

from eval_pipeline.scoring.score import Score

def scored(
    scorer: Any,
    run: Any,
    value: float,
    reason: str,
    span_ids: Sequence[str],
    evidence: Mapping[str, Any] | None,
    judge_fingerprint: str | None,
    judge_backend: str | None,
) -> Score:
    """``rows.scored_row``."""

def stamp(
    row: Score,
    build: str | None,
    item_id: str | None,
    run_index: int | None,
    item_slices: Mapping[str, str],
    run_trace: str | None,
    scorer_args: Mapping[str, Any],
) -> None:
    """``rows.stamp_row``."""

def configure(score_class: type[Score], field_defaults: dict[str, Any], scored_status: str) -> None:
    """What rows are made of: the class, its fields' defaults in order, the scored status."""

def identity(id_property: property, version_property: property) -> None:
    """The scorer base's ``id`` and ``version`` properties (they return the class variables)."""
