"""Scoring a whole build: every expected (item, run index) gets a row per metric.

Runs are matched to items by the eval context on their root span (item id, run index); a
trace recorded without an eval context is its own item (item id = trace id, run index 0), so a
dataset can reference recorded traces by id. A run that is absent, failed, or whose item the
suite does not know, never silently disappears: an absent run is written as ``unscored`` for
every metric ("no trace recorded"), a run the runner marked failed as ``error`` with the
failure, and unmatched runs are returned for the caller to report.

A scorer that can score many runs at once (``score_many``, the judge-based ones) gets all the
build's runs in one call; its rows then go through ``score_run`` like any other scorer's. The
batches of scorers that need a judge run at the same time, one thread each, so a build's judged
metrics wait on the model together: the judge's own limits (``judges.limits``) bound what is in
flight across them, and each batch's rows stay in its scorer's place, so the rows do not depend
on which answer came first.
"""

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, runtime_checkable

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.registry import score_run
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.model import AgentRun

RunMetrics = dict[tuple[str, int], dict[str, float]]


@runtime_checkable
class BatchScorer(Protocol):
    """A scorer that scores many runs at once, giving the rows ``score`` would."""

    def score_many(self, pairs: Sequence[tuple[AgentRun, DatasetItem]]) -> list[Score]:
        """One row per (run, item), in order."""
        ...


@dataclass(frozen=True)
class _Answered:
    """A scorer's row for one run, already computed in its batch (``Scorer`` protocol)."""

    scorer: Scorer
    row: Score

    @property
    def id(self) -> str:
        """The batch scorer's id."""
        return self.scorer.id

    @property
    def version(self) -> int:
        """The batch scorer's version."""
        return self.scorer.version

    @property
    def direction(self) -> str:
        """The batch scorer's direction."""
        return self.scorer.direction

    @property
    def requires_run(self) -> frozenset[str]:
        """The batch scorer's run fields."""
        return self.scorer.requires_run

    @property
    def requires_item(self) -> frozenset[str]:
        """The batch scorer's item fields."""
        return self.scorer.requires_item

    @property
    def needs_judge(self) -> bool:
        """Whether the batch scorer needs a judge."""
        return self.scorer.needs_judge

    @property
    def arguments(self) -> dict[str, Any]:
        """The batch scorer's construction arguments (recorded on its rows)."""
        return self.scorer.arguments

    def score(self, run: AgentRun, item: DatasetItem) -> Score:
        """The row computed in the batch."""
        return self.row


def _batched(
    scorers: Sequence[Scorer], pairs: list[tuple[AgentRun, DatasetItem]]
) -> dict[int, list[Score]]:
    """Rows of every batch scorer over ``pairs``, by scorer position (judged ones at once)."""
    batch = [n for n, s in enumerate(scorers) if isinstance(s, BatchScorer) and pairs]

    def rows_of(n: int) -> list[Score] | None:
        try:
            return cast(BatchScorer, scorers[n]).score_many(pairs)
        except Exception:
            # Scored run by run instead, where the failure becomes that run's error row.
            return None

    judged = [n for n in batch if scorers[n].needs_judge]
    answers: dict[int, list[Score] | None] = {}
    if len(judged) > 1:
        with ThreadPoolExecutor(len(judged), thread_name_prefix="judged-metric") as pool:
            answers.update(zip(judged, pool.map(rows_of, judged), strict=True))
    answers.update((n, rows_of(n)) for n in batch if n not in answers)
    return {n: rows for n, rows in sorted(answers.items()) if rows is not None}


def run_key(run: AgentRun) -> tuple[str, int]:
    """(item id, run index) of a run: its eval context, else (trace id, 0)."""
    context = run.eval_context
    return (
        context.item_id or run.trace_id,
        0 if context.run_index is None else int(context.run_index),
    )


@dataclass(frozen=True)
class BuildScores:
    """Rows for a build, per-run latency/cost, and the runs no item claimed."""

    scores: list[Score]
    run_metrics: RunMetrics
    unmatched: list[AgentRun] = field(default_factory=list)


def score_build(
    build: str,
    runs: Sequence[AgentRun],
    items: Sequence[DatasetItem],
    scorers: Sequence[Scorer],
    *,
    runs_per_item: int,
    cost: Callable[[AgentRun], float | None] | None = None,
    failure: Callable[[AgentRun], str | None] | None = None,
) -> BuildScores:
    """Score every (item, run index) of a build (see the module docstring).

    ``failure`` tells why a run failed (None when it did not); a failed run's spans are not
    scored, since a run that crashed trivially "executed no forbidden call".
    """
    by_key: dict[tuple[str, int], AgentRun] = {}
    unmatched: list[AgentRun] = []
    known = {item.item_id for item in items}
    for run in runs:
        key = run_key(run)
        if key[0] not in known:
            unmatched.append(run)
            continue
        # A run redone after a failure (``retry_failed``) wins over its failure record.
        if key in by_key and failure is not None and failure(run) is not None:
            continue
        by_key[key] = run
    reasons = {key: failure(run) if failure else None for key, run in by_key.items()}
    pairs = [
        (by_key[(item.item_id, index)], item)
        for item in items
        for index in range(runs_per_item)
        if (item.item_id, index) in by_key and reasons[(item.item_id, index)] is None
    ]
    batched = _batched(scorers, pairs)
    scores: list[Score] = []
    metrics: RunMetrics = {}
    scored = 0
    for item in items:
        for index in range(runs_per_item):
            found = by_key.get((item.item_id, index))
            reason = None if found is None else reasons[(item.item_id, index)]
            if found is None or reason is not None:
                why = (
                    "no trace recorded for this item and run"
                    if found is None
                    else f"run failed: {reason}"
                )
                scores.extend(
                    Score(
                        metric_id=s.id,
                        value=None,
                        # A crashed run is an error of the system under test; an absent one
                        # could not be scored. The gate counts both as missing, by cause.
                        status=ScoreStatus.UNSCORED if found is None else ScoreStatus.ERROR,
                        scorer_id=s.id,
                        scorer_version=s.version,
                        reason=why,
                        trace_id=None if found is None else found.trace_id,
                        build=build,
                        item_id=item.item_id,
                        run_index=index,
                        slices=dict(item.slices),
                        scorer_args=dict(s.arguments),
                    )
                    for s in scorers
                )
                continue
            # The key's run index, which is 0 for a trace recorded without an eval context.
            view = [
                _Answered(scorer, batched[n][scored]) if n in batched else scorer
                for n, scorer in enumerate(scorers)
            ]
            scored += 1
            scores.extend(score_run(found, item, view, build=build, run_index=index))
            values = {"latency_s": found.duration_s}
            run_cost = cost(found) if cost is not None else None
            if run_cost is not None:
                values["cost_usd"] = run_cost
            metrics[(item.item_id, index)] = values
    return BuildScores(scores, metrics, unmatched)
