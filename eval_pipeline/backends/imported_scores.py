"""Scores another back end recorded, as score rows, kept in the score store beside ours.

Every importer of this package (Phoenix annotations, Langfuse scores, ``nat eval`` results,
OpenAI Evals grader results, evaluation events received over OTLP) ends here: rows are grouped
by their build and upserted (``ScoreStore.write``: same key, same row), so importing twice
stores each score once. A row is checked before anything is written, so a bad row never leaves
half an import behind.
"""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.ingest.guard import build_problem

IMPORTED_PREFIX = "imported:"
"""Scorer ids of scores a back end recorded start with this (``imported:phoenix``)."""


def store_imported_scores(
    store: ScoreStore, scores: Sequence[Score], *, default_build: str = "unassigned"
) -> dict[str, int]:
    """Upsert ``scores`` by build (``default_build`` for rows naming none); rows per build.

    Raises ``ValueError`` naming the build when a build name cannot be stored.
    """
    by_build: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        by_build[score.build or default_build].append(score)
    for build in by_build:
        if (problem := build_problem(build)) is not None:
            raise ValueError(f"build {build[:80]!r}: {problem}")
    return {build: store.write(build, rows) for build, rows in by_build.items()}


@dataclass(frozen=True)
class RunIdentity:
    """The run a back end's score belongs to (from the eval context of its trace)."""

    build: str | None = None
    item_id: str | None = None
    run_index: int | None = None
    trace_id: str | None = None
    span_id: str | None = None
    dataset: str | None = None
    dataset_version: str | None = None


class ScoreFieldError(ValueError):
    """A back end's score that cannot be a score row; ``field`` names where."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def recorded_score(
    *,
    name: Any,
    value: Any,
    label: Any,
    explanation: Any,
    ours: Mapping[str, Any] | None,
    run: RunIdentity,
    scorer_id: str,
    build: str | None = None,
) -> Score:
    """One score row from what a back end recorded.

    ``ours`` is the row's own fields when the product exported it (Phoenix annotation metadata,
    Langfuse score metadata): the row comes back exactly, on ``build`` when the import names
    one. Otherwise the back end's evaluator is ``scorer_id`` (version 1), the row is ``scored``
    when it has a value in [0, 1] and ``unscored`` with the label as its reason when it has
    none; a value outside [0, 1] is refused (``ScoreFieldError`` naming the field), never
    rescaled or clipped.
    """
    if not isinstance(name, str) or not name:
        raise ScoreFieldError("name", "is required (a non-empty string)")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ScoreFieldError("value", f"must be a number, got {value!r:.40}")
    if ours:
        status = ours.get("status")
        if status not in ScoreStatus.ALL:
            raise ScoreFieldError("metadata.status", f"unknown status {status!r:.40}")
        try:
            return Score(
                metric_id=name,
                value=None if value is None else float(value),
                status=status,
                scorer_id=str(ours.get("scorer_id") or scorer_id),
                scorer_version=int(ours.get("scorer_version") or 1),
                reason=str(explanation or ""),
                trace_id=ours.get("trace_id") or run.trace_id,
                span_ids=tuple(ours.get("span_ids", [run.span_id] if run.span_id else [])),
                build=build or ours.get("build") or run.build,
                item_id=ours.get("item_id", run.item_id),
                run_index=ours.get("run_index", run.run_index),
                judge_fingerprint=ours.get("judge_fingerprint"),
                judge_backend=ours.get("judge_backend"),
                evidence=dict(ours.get("evidence") or {}),
                slices=dict(ours.get("slices") or {}),
                scorer_args=dict(ours.get("scorer_args") or {}),
                dataset=ours.get("dataset", run.dataset),
                dataset_version=ours.get("dataset_version", run.dataset_version),
            )
        except (TypeError, ValueError) as exc:
            raise ScoreFieldError("metadata", str(exc)) from None
    if value is not None and not 0.0 <= float(value) <= 1.0:
        raise ScoreFieldError("value", f"must be in [0, 1] to be a score, got {value!r:.40}")
    reason = str(explanation or "")
    if value is None and label is not None:
        reason = reason or f"label: {label}"
    return Score(
        metric_id=name,
        value=None if value is None else float(value),
        status=ScoreStatus.SCORED if value is not None else ScoreStatus.UNSCORED,
        scorer_id=scorer_id,
        scorer_version=1,
        reason=reason,
        trace_id=run.trace_id,
        span_ids=(run.span_id,) if run.span_id else (),
        build=build or run.build,
        item_id=run.item_id,
        run_index=run.run_index,
        evidence={"label": label} if label is not None else {},
        dataset=run.dataset,
        dataset_version=run.dataset_version,
    )
