"""Stage 2: score every run of a build on its suite's metrics; find what is missing."""

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from eval_pipeline.evaluation.calibration_stage import ensure_calibrated
from eval_pipeline.evaluation.runs_stage import stored_runs
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.judges.judge_trace import judge_build, judge_trace
from eval_pipeline.runners.failure import failure_reason
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.suites.judge_cost import JudgeCost, judge_cost
from eval_pipeline.suites.prices import PriceTable, known_cost_of_run
from eval_pipeline.traces.store.trace_store import TraceStore


@dataclass(frozen=True)
class ScoresSummary:
    """What ``run_scores`` wrote: rows by status, the judge, the scorer versions, the judge calls.

    ``judge_trace_id`` is the trace holding this scoring job's judge calls (None: it made none,
    every answer came from the cache or the judge is offline); ``judge`` counts them, their tokens
    and their cost.
    """

    build: str
    rows: int
    by_status: dict[str, int]
    judge_fingerprint: str | None
    judge_backend: str | None
    scorer_versions: dict[str, str]
    unmatched_runs: int = 0
    judge_trace_id: str | None = None
    judge: JudgeCost | None = None

    def metadata(self) -> dict[str, Any]:
        """Plain metadata values (typed by the Dagster shell)."""
        return {
            "build": self.build,
            "score_rows": self.rows,
            "scored": self.by_status.get(ScoreStatus.SCORED, 0),
            "unscored": self.by_status.get(ScoreStatus.UNSCORED, 0),
            "error": self.by_status.get(ScoreStatus.ERROR, 0),
            "not_applicable": self.by_status.get(ScoreStatus.NOT_APPLICABLE, 0),
            "judge_fingerprint": self.judge_fingerprint,
            "judge_backend": self.judge_backend,
            "scorer_versions": self.scorer_versions,
            "runs_matching_no_item": self.unmatched_runs,
            "judge_trace_id": self.judge_trace_id,
            **(self.judge or JudgeCost(0, 0, 0, 0.0)).metadata(),
        }


def score_runs(stage: Stage) -> ScoresSummary:
    """Score the build's stored runs with the suite's scorers and write the long scores table.

    Every expected (item, run index) gets a row per metric: a run that failed (raised, hung,
    emitted no spans) or never arrived is written as ``unscored`` with the reason, so the gate
    counts it as missing instead of silently averaging over fewer runs. Each row names the
    dataset version its item came from. The judge that scored the build is recorded, and
    calibrated on the suite's set if it never was, so every path that gates the build trusts
    (or distrusts) its judge the same way. Every request the judge sends meanwhile (calibration's
    too) is stored as a chat span of one judge trace (``judges.judge_trace``), the rows naming
    theirs; the summary counts the calls and their cost.
    """
    scorers = list(stage.scorers)
    prices = PriceTable.load()
    judge = stage.judge
    traces = TraceStore(stage.home.store)
    with judge_trace(judge, stage.build, traces, stage.redaction_policy) as calls:
        result = score_build(
            stage.build,
            stored_runs(stage),
            stage.dataset_items,
            scorers,
            runs_per_item=stage.runs_per_item,
            cost=lambda run: known_cost_of_run(run, prices),
            failure=lambda run: failure_reason(run.spans),
        )
        source = {e.item.item_id: (e.dataset, e.dataset_version) for e in stage.items}
        rows = [
            replace(s, dataset=source[s.item_id][0], dataset_version=source[s.item_id][1])
            if s.item_id in source
            else s
            for s in result.scores
        ]
        ScoreStore(stage.home.store).write(stage.build, rows, run_metrics=result.run_metrics)
        fingerprint = judge.fingerprint.digest if judge is not None else None
        stage.registry.record_scored_with(stage.build, fingerprint)
        if judge is not None:
            ensure_calibrated(stage, judge)
    recorded = traces.find_trace(calls.trace_id, build=judge_build(stage.build))
    return ScoresSummary(
        build=stage.build,
        rows=len(result.scores),
        by_status=dict(Counter(score.status for score in result.scores)),
        judge_fingerprint=fingerprint,
        judge_backend=judge.backend if judge is not None else None,
        scorer_versions={scorer.id: f"{scorer.id}@{scorer.version}" for scorer in scorers},
        unmatched_runs=len(result.unmatched),
        judge_trace_id=calls.trace_id if recorded else None,
        judge=judge_cost(recorded[1] if recorded else (), prices),
    )


def missing_scores(stage: Stage) -> list[dict[str, Any]]:
    """Every expected item x run x metric without a ``scored`` row, with the reason.

    A ``not_applicable`` row is not missing: its scorer declared the metric does not apply.
    """
    frame = ScoreStore(stage.home.store).read_frame(stage.build)
    have: dict[tuple[str, int, str], tuple[str, str]] = {
        (str(row.item_id), int(row.run_index), str(row.metric_id)): (
            str(row.status),
            str(row.reason or ""),
        )
        for row in frame.itertuples(index=False)
    }
    missing = []
    for entry in stage.items:
        for index in range(stage.runs_per_item):
            for metric_id in stage.suite.metric_ids:
                status, reason = have.get(
                    (entry.item.item_id, index, metric_id), ("absent", "no score row")
                )
                if status not in (ScoreStatus.SCORED, ScoreStatus.NOT_APPLICABLE):
                    missing.append(
                        {
                            "item_id": entry.item.item_id,
                            "run_index": index,
                            "metric_id": metric_id,
                            "status": status,
                            "reason": reason,
                        }
                    )
    return missing
