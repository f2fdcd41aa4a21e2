"""Runner -> trace store -> scores -> gate, for one suite: what the defects check and the story run.

``SuiteEvaluation.evaluate(build)`` runs the build over the suite's items x ``runs_per_item``
(resuming whatever is already stored), scores every run with the suite's metrics, stores the
scores (with per-run latency and cost from the price table) and returns the long scores frame
the gate reads. Scoring is ``scoring.batch.score_build``: a failed run (see
``runners.failure``) gets an ``error`` row for every metric with the failure reason, an absent
run ``unscored`` rows, so the gate counts both as missing and never as a zero.
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
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.model import AgentRun, EvalContext
from eval_pipeline.traces.runs.assemble import assemble_runs

RunnerFactory = Callable[[str, Mapping[str, Any]], Runner]
"""(build id, build params) -> a runner writing to the evaluation's sink."""


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
        result = score_build(
            build,
            assemble_runs(self.sink.spans(build)),
            self.items,
            self.scorers,
            runs_per_item=self.runs_per_item,
            cost=self.cost_of_run,
            failure=lambda run: failure_reason(run.spans),
        )
        scores, per_run = result.scores, result.run_metrics
        if self.score_store is not None:
            self.score_store.write(build, scores, run_metrics=per_run)
        return BuildScores(build, self._frame(scores, per_run), batch, tuple(scores))

    def _frame(
        self, scores: Sequence[Score], per_run: Mapping[tuple[str, int], Mapping[str, float]]
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
