"""Score rows made and stamped on the scoring hot path, in C when built (``_rows.c``).

Every deterministic scorer's every row is made by ``ScorerBase.scored`` (or, without a value,
``unscored`` / ``not_applicable`` / ``errored``) and stamped by ``registry.score_run`` with the
identity of the run it scored; both are ten per run. The
functions here are the Python reference of ``_rows``, which makes the same rows (every field,
the ``__dict__``'s key order too) without the interpreter's cost per field: ``scored_row`` is
``Score.checked``'s row for a value already known valid (clamped to [0, 1] here), and
``stamp_row`` writes a row's run identity into the row itself. ``scored`` and ``stamp`` are
the C functions when the extension is built, these otherwise.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from eval_pipeline.scoring.score import ROW_DEFAULTS, Score, ScoreStatus

_new_row = object.__new__


def scored_row(
    scorer: Any,
    run: Any,
    value: float,
    reason: str,
    span_ids: Sequence[str],
    evidence: Mapping[str, Any] | None,
    judge_fingerprint: str | None,
    judge_backend: str | None,
) -> Score:
    """A ``scored`` row of ``scorer`` for ``run`` (the value clamped to [0, 1])."""
    clamped = float(value)
    # min(1.0, max(0.0, value)) without the builtins' call cost (NaN and -0.0 give 0.0).
    clamped = clamped if clamped > 0.0 else 0.0
    clamped = clamped if clamped < 1.0 else 1.0
    metric = scorer.id
    row = _new_row(Score)
    values = row.__dict__
    values.update(ROW_DEFAULTS)
    values["metric_id"] = metric
    values["value"] = clamped
    values["status"] = ScoreStatus.SCORED
    values["scorer_id"] = metric
    values["scorer_version"] = scorer.version
    values["reason"] = reason
    values["trace_id"] = run.trace_id
    values["span_ids"] = tuple(dict.fromkeys(span_ids)) if span_ids else ()
    values["judge_fingerprint"] = judge_fingerprint
    values["judge_backend"] = judge_backend
    values["evidence"] = dict(evidence) if evidence else {}
    values["slices"] = {}
    values["scorer_args"] = {}
    return row


def unvalued_row(
    scorer: Any,
    run: Any,
    status: str,
    reason: str,
    evidence: Mapping[str, Any] | None,
    judge_fingerprint: str | None,
    judge_backend: str | None,
) -> Score:
    """A row of ``scorer`` for ``run`` without a value (unscored, not applicable, error)."""
    metric = scorer.id
    return Score.checked(
        metric,
        None,
        status,
        metric,
        scorer.version,
        reason,
        run.trace_id,
        (),
        judge_fingerprint,
        judge_backend,
        dict(evidence) if evidence else {},
    )


def stamp_row(
    row: Score,
    build: str | None,
    item_id: str | None,
    run_index: int | None,
    item_slices: Mapping[str, str],
    run_trace: str | None,
    scorer: Any,
) -> None:
    """Write the run's identity into ``row`` itself (a row no one else holds).

    The build, item, run index, the item's slices over the row's own, the run's trace id
    unless the row names one, and a copy of the scorer's ``arguments``.
    """
    values = row.__dict__
    own = values["slices"]
    values["build"] = build
    values["item_id"] = item_id
    values["run_index"] = run_index
    values["slices"] = {**own, **item_slices} if own else dict(item_slices)
    if values["trace_id"] is None:
        values["trace_id"] = run_trace
    values["scorer_args"] = dict(scorer.arguments)


unvalued = unvalued_row
scored: Callable[..., Score] = scored_row
stamp: Callable[..., None] = stamp_row
