"""A scorer's verdict on one run: the part of a score row that is the scorer's own.

A built-in scorer (``ScorerBase``) says what it concluded (status, value, reason, the spans
and evidence it rests on, the judge that gave it) and nothing about where the run came from.
The score row is built from the verdict once, by whoever knows the run's identity: the
registry's ``score_run`` adds the build, item, run index, slices and the scorer's arguments,
and ``ScorerBase.score`` (a run scored on its own) adds only the run's trace id.
"""

from collections.abc import Mapping
from typing import Any, NamedTuple

from eval_pipeline.scoring.score import Score


class Verdict(NamedTuple):
    """What a scorer concluded about one run (``ScorerBase.scored`` and siblings make one).

    ``value`` is already valid for ``status`` (a float in [0, 1] when scored, else None);
    ``span_ids`` hold no duplicates; ``evidence`` is the verdict's own dict; ``judge_calls``
    names the judge calls that made it (``Score.judge_calls``).
    """

    status: str
    value: float | None
    reason: str
    span_ids: tuple[str, ...]
    evidence: dict[str, Any]
    judge_fingerprint: str | None
    judge_backend: str | None
    judge_calls: tuple[str, ...] = ()

    def row(
        self,
        metric_id: str,
        version: int,
        trace_id: str | None,
        *,
        build: str | None = None,
        item_id: str | None = None,
        run_index: int | None = None,
        slices: Mapping[str, str] | None = None,
        scorer_args: Mapping[str, Any] | None = None,
    ) -> Score:
        """The score row of this verdict by scorer ``metric_id@version`` for the run given."""
        # By position, in ``Score``'s field order: ten rows are built per run scored.
        return Score(
            metric_id,
            self.value,
            self.status,
            metric_id,
            version,
            self.reason,
            trace_id,
            self.span_ids,
            build,
            item_id,
            run_index,
            self.judge_fingerprint,
            self.judge_backend,
            self.evidence,
            dict(slices) if slices else {},
            dict(scorer_args) if scorer_args else {},
            judge_calls=self.judge_calls,
        )
