"""Runner -> trace store -> scores -> gate, for one suite: what the defects check and the story run.

``SuiteEvaluation.evaluate(build)`` runs the build over the suite's items x ``runs_per_item``
(resuming whatever is already stored), scores every run with the suite's metrics, stores the
scores (with per-run latency and cost from the price table) and returns the long scores frame
the gate reads. A failed run (see ``runners.failure``) gets an ``error`` row for every metric,
with the failure reason, so the gate counts it as missing and never as a zero.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.runners.base import Runner
from eval_pipeline.runners.failure import failure_reason
from eval_pipeline.runners.outcome import RunBatchResult
from eval_pipeline.runners.sink import RunSink
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.assemble import assemble_runs
from eval_pipeline.traces.model import AgentRun, EvalContext

RunnerFactory = Callable[[str, Mapping[str, Any]], Runner]
"""(build id, build params) -> a runner writing to the evaluation's sink."""


def failed_run_scores(
    run: AgentRun, reason: str, scorers: Sequence[Scorer], item: DatasetItem, build: str
) -> list[Score]:
    """One ``error`` row per metric for a run that failed before it could be scored."""
    return [
        Score(
            metric_id=s.id,
            value=None,
            status=ScoreStatus.ERROR,
            scorer_id=s.id,
            scorer_version=s.version,
            reason=f"run failed: {reason}",
            trace_id=run.trace_id,
            build=build,
            item_id=item.item_id,
            run_index=run.eval_context.run_index,
            slices=dict(item.slices),
        )
        for s in scorers
    ]


@dataclass(frozen=True)
class BuildScores:
    """The scores of one build on the suite, and the runner's batch result."""

    build: str
    frame: pd.DataFrame
    batch: RunBatchResult
    scores: tuple[Score, ...] = field(default_factory=tuple)

    def mean(self, metric_id: str) -> float | None:
        """Mean of the scored values of a metric (None when nothing was scored)."""
        rows = self.frame[
            (self.frame["metric_id"] == metric_id) & (self.frame["status"] == ScoreStatus.SCORED)
        ]
        return None if rows.empty else float(rows["value"].mean())


class SuiteEvaluation:
    """Runs and scores builds over one suite's items (see the module docstring)."""

    def __init__(
        self,
        *,
        items: Sequence[DatasetItem],
        scorers: Sequence[Scorer],
        sink: RunSink,
        runner_factory: RunnerFactory,
        runs_per_item: int,
        base_context: EvalContext | None = None,
        slices: Sequence[str] = (),
        cost_of_run: Callable[[AgentRun], float | None] | None = None,
        score_store: Any = None,
        concurrency: int = 4,
    ) -> None:
        self.items = list(items)
        self.by_id = {item.item_id: item for item in self.items}
        self.scorers = list(scorers)
        self.sink = sink
        self.runner_factory = runner_factory
        self.runs_per_item = runs_per_item
        self.base_context = base_context or EvalContext()
        self.slices = tuple(slices)
        self.cost_of_run = cost_of_run
        self.score_store = score_store
        self.concurrency = concurrency

    def evaluate(
        self, build: str, params: Mapping[str, Any] | None = None, *, seed_base: str | None = None
    ) -> BuildScores:
        """Run (resuming), score and store one build; return its scores frame."""
        runner = self.runner_factory(build, dict(params or {}))
        batch = runner.run_items(
            self.items,
            build=build,
            runs_per_item=self.runs_per_item,
            concurrency=self.concurrency,
            base_context=self.base_context,
            seed_base=seed_base,
        )
        wanted = {(o.item_id, o.run_index) for o in batch.outcomes}
        runs: dict[tuple[str, int], AgentRun] = {}
        for run in assemble_runs(self.sink.spans(build)):
            key = (run.eval_context.item_id or "", run.eval_context.run_index or 0)
            if key in wanted and not (key in runs and failure_reason(run.spans)):
                runs[key] = run
        scores: list[Score] = []
        per_run: dict[tuple[str, int], dict[str, float | None]] = {}
        for key in sorted(wanted):
            found = runs.get(key)
            item = self.by_id[key[0]]
            if found is None:
                continue  # not stored at all: the gate counts the absent rows as missing
            run = found
            reason = failure_reason(run.spans)
            if reason is not None:
                scores += failed_run_scores(run, reason, self.scorers, item, build)
                per_run[key] = {"latency_s": None, "cost_usd": None}
                continue
            scores += _score(run, item, self.scorers, build)
            per_run[key] = {
                "latency_s": run.duration_s,
                "cost_usd": self.cost_of_run(run) if self.cost_of_run else None,
            }
        if self.score_store is not None:
            self.score_store.write(
                build,
                scores,
                run_metrics={
                    k: {m: v for m, v in values.items() if v is not None}
                    for k, values in per_run.items()
                },
            )
        return BuildScores(build, self._frame(scores, per_run), batch, tuple(scores))

    def _frame(
        self, scores: Sequence[Score], per_run: Mapping[tuple[str, int], Mapping[str, float | None]]
    ) -> pd.DataFrame:
        rows = []
        for score in scores:
            key = (score.item_id or "", score.run_index or 0)
            rows.append(
                {
                    "item_id": score.item_id,
                    "run_index": score.run_index,
                    "metric_id": score.metric_id,
                    "value": score.value,
                    "status": score.status,
                    "trace_id": score.trace_id,
                    "reason": score.reason,
                    **{name: score.slices.get(name) for name in self.slices},
                    **dict(per_run.get(key, {})),
                }
            )
        columns = [
            "item_id",
            "run_index",
            "metric_id",
            "value",
            "status",
            "trace_id",
            "reason",
            *self.slices,
            "latency_s",
            "cost_usd",
        ]
        return pd.DataFrame(rows, columns=columns)


def _score(run: AgentRun, item: DatasetItem, scorers: Sequence[Scorer], build: str) -> list[Score]:
    from eval_pipeline.scoring.registry import score_run

    return score_run(run, item, scorers, build=build)
