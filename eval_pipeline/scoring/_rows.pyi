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
    scorer: Any,
) -> None:
    """``rows.stamp_row``."""

def unvalued(
    scorer: Any,
    run: Any,
    status: str,
    reason: str,
    evidence: Mapping[str, Any] | None,
    judge_fingerprint: str | None,
    judge_backend: str | None,
) -> Score | None:
    """``rows.unvalued_row``; None for a status that is not one of a row without a value."""

def configure(
    score_class: type[Score],
    field_defaults: dict[str, Any],
    scored_status: str,
    unvalued_statuses: frozenset[str],
) -> None:
    """What rows are made of: the class, its fields' defaults in order, the statuses."""

def identity(
    id_property: property, version_property: property, arguments_property: property
) -> None:
    """The scorer base's ``id``, ``version`` and ``arguments`` (class variables, ``{}``)."""
