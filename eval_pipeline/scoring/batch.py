"""Scoring a whole build: every expected (item, run index) gets a row per metric.

Runs are matched to items by the eval context on their root span (item id, run index). A run
that is absent, or whose item the suite does not know, never silently disappears: an absent
run is written as ``unscored`` for every metric ("no trace recorded"), and unmatched runs are
returned for the caller to report.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.registry import score_run
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.model import AgentRun

RunMetrics = dict[tuple[str, int], dict[str, float]]


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
) -> BuildScores:
    """Score every (item, run index) of a build (see the module docstring)."""
    by_key: dict[tuple[str, int], AgentRun] = {}
    unmatched: list[AgentRun] = []
    known = {item.item_id for item in items}
    for run in runs:
        context = run.eval_context
        if context.item_id not in known or context.run_index is None:
            unmatched.append(run)
            continue
        by_key[(str(context.item_id), int(context.run_index))] = run
    scores: list[Score] = []
    metrics: RunMetrics = {}
    for item in items:
        for index in range(runs_per_item):
            found = by_key.get((item.item_id, index))
            if found is None:
                scores.extend(
                    Score(
                        metric_id=s.id,
                        value=None,
                        status=ScoreStatus.UNSCORED,
                        scorer_id=s.id,
                        scorer_version=s.version,
                        reason="no trace recorded for this item and run",
                        build=build,
                        item_id=item.item_id,
                        run_index=index,
                        slices=dict(item.slices),
                    )
                    for s in scorers
                )
                continue
            scores.extend(score_run(found, item, scorers, build=build))
            values = {"latency_s": found.duration_s}
            run_cost = cost(found) if cost is not None else None
            if run_cost is not None:
                values["cost_usd"] = run_cost
            metrics[(item.item_id, index)] = values
    return BuildScores(scores, metrics, unmatched)
