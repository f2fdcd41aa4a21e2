"""Stage 2: score every run of a build on its suite's metrics; find what is missing."""

from collections import Counter
from dataclasses import dataclass
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.evaluation.runs_stage import run_key, stored_runs
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.runners.failure import failure_reason
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.registry import JUDGE_METRICS, build_scorer, score_run
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.suites.prices import PriceTable, cost_of_run


@dataclass(frozen=True)
class ScoresSummary:
    """What ``run_scores`` wrote: rows by status, the judge, the scorer versions."""

    build: str
    rows: int
    by_status: dict[str, int]
    judge_fingerprint: str | None
    judge_backend: str | None
    scorer_versions: dict[str, str]

    def metadata(self) -> dict[str, Any]:
        """Plain metadata values (typed by the Dagster shell)."""
        return {
            "build": self.build, "score_rows": self.rows,
            "scored": self.by_status.get(ScoreStatus.SCORED, 0),
            "unscored": self.by_status.get(ScoreStatus.UNSCORED, 0),
            "error": self.by_status.get(ScoreStatus.ERROR, 0),
            "judge_fingerprint": self.judge_fingerprint, "judge_backend": self.judge_backend,
            "scorer_versions": self.scorer_versions,
        }


def suite_scorers(stage: Stage, judge: Judge) -> list[Scorer]:
    """One scorer per suite metric; judge-based metrics get ``judge``."""
    return [
        build_scorer(metric_id, judge=judge) if metric_id in JUDGE_METRICS
        else build_scorer(metric_id)
        for metric_id in stage.suite.metric_ids
    ]


def _missing_run_rows(stage: Stage, item: DatasetItem, run_index: int, reason: str,
                      scorers: list[Scorer], trace_id: str | None) -> list[Score]:
    return [
        Score(metric_id=scorer.id, value=None, status=ScoreStatus.UNSCORED,
              scorer_id=scorer.id, scorer_version=scorer.version, reason=reason,
              trace_id=trace_id, build=stage.build, item_id=item.item_id,
              run_index=run_index, slices=dict(item.slices))
        for scorer in scorers
    ]


def score_runs(stage: Stage, judge: Judge) -> ScoresSummary:
    """Score the build's stored runs and write the long scores table.

    Every expected (item, run index) gets a row per metric: a run that failed (raised, hung,
    emitted no spans) or never arrived is written as ``unscored`` with the reason, so the gate
    counts it as missing instead of silently averaging over fewer runs.
    """
    scorers = suite_scorers(stage, judge)
    items = {entry.item.item_id: entry.item for entry in stage.items}
    runs = {run_key(run): run for run in stored_runs(stage)}
    prices = PriceTable.load()
    scores: list[Score] = []
    run_metrics: dict[tuple[str, int], dict[str, float]] = {}
    for item_id, item in items.items():
        for index in range(stage.suite.runs_per_item):
            run = runs.get((item_id, index))
            if run is None:
                scores += _missing_run_rows(stage, item, index, "no trace recorded for this "
                                            "item and run", scorers, None)
                continue
            reason = failure_reason(run.spans)
            if reason is not None:
                scores += _missing_run_rows(stage, item, index, f"run failed: {reason}",
                                            scorers, run.trace_id)
                continue
            scores += score_run(run, item, scorers, build=stage.build)
            metrics = {"latency_s": run.duration_s}
            cost = cost_of_run(run, prices)
            if cost is not None:
                metrics["cost_usd"] = cost
            run_metrics[(item_id, index)] = metrics
    ScoreStore(stage.home.store).write(stage.build, scores, run_metrics=run_metrics)
    fingerprint = judge.fingerprint.digest
    stage.registry.record_scored_with(stage.build, fingerprint)
    return ScoresSummary(
        build=stage.build,
        rows=len(scores),
        by_status=dict(Counter(score.status for score in scores)),
        judge_fingerprint=fingerprint,
        judge_backend=judge.backend,
        scorer_versions={scorer.id: f"{scorer.id}@{scorer.version}" for scorer in scorers},
    )


def missing_scores(stage: Stage) -> list[dict[str, Any]]:
    """Every expected item x run x metric without a ``scored`` row, with the reason."""
    frame = ScoreStore(stage.home.store).read_frame(stage.build)
    have: dict[tuple[str, int, str], tuple[str, str]] = {
        (str(row.item_id), int(row.run_index), str(row.metric_id)): (str(row.status),
                                                                     str(row.reason or ""))
        for row in frame.itertuples(index=False)
    }
    missing = []
    for entry in stage.items:
        for index in range(stage.suite.runs_per_item):
            for metric_id in stage.suite.metric_ids:
                status, reason = have.get((entry.item.item_id, index, metric_id),
                                          ("absent", "no score row"))
                if status != ScoreStatus.SCORED:
                    missing.append({"item_id": entry.item.item_id, "run_index": index,
                                    "metric_id": metric_id, "status": status,
                                    "reason": reason})
    return missing
