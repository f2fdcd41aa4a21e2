"""Stage 1: the candidate runs of a build (executed now, or read as stored)."""

from dataclasses import dataclass
from typing import Any

from eval_pipeline.evaluation.runner_spec import runner_from_spec
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.runners.failure import failure_reason
from eval_pipeline.runners.sink import TraceStoreSink
from eval_pipeline.traces.model import AgentRun, EvalContext
from eval_pipeline.traces.store.trace_store import TraceStore


@dataclass(frozen=True)
class RunsSummary:
    """What ``candidate_runs`` made: counts of runs by outcome."""

    build: str
    expected: int
    runs: int
    complete: int
    failed: int
    executed: int
    skipped: int
    runner: str

    def metadata(self) -> dict[str, Any]:
        """Plain metadata values (typed by the Dagster shell)."""
        return {
            "build": self.build,
            "runner": self.runner,
            "expected_runs": self.expected,
            "runs": self.runs,
            "complete_runs": self.complete,
            "failed_runs": self.failed,
            "executed_now": self.executed,
            "already_stored": self.skipped,
        }


def stored_runs(stage: Stage) -> list[AgentRun]:
    """The build's runs as stored in the trace store."""
    return TraceStore(stage.home.store).runs(stage.build)


def collect_runs(stage: Stage, *, concurrency: int = 4) -> RunsSummary:
    """Execute the build's runner over the suite's items x runs_per_item (resumable).

    Runs already stored for the build are not redone. A build without a runner is read as
    stored (its traces were ingested or imported).
    """
    executed = skipped = 0
    spec = stage.record.runner
    if spec:
        sink = TraceStoreSink(TraceStore(stage.home.store))
        runner = runner_from_spec(spec, sink)
        base = EvalContext(suite=stage.suite.suite, suite_version=stage.suite.version)
        result = runner.run_items(
            [entry.item for entry in stage.items],
            build=stage.build,
            runs_per_item=stage.suite.runs_per_item,
            concurrency=concurrency,
            base_context=base,
        )
        summary = result.summary()
        skipped = int(summary.get("skipped", 0))
        executed = len(result.outcomes) - skipped
    runs = stored_runs(stage)
    failed = sum(1 for run in runs if failure_reason(run.spans) is not None)
    return RunsSummary(
        build=stage.build,
        expected=len(stage.items) * stage.suite.runs_per_item,
        runs=len(runs),
        complete=sum(1 for run in runs if run.complete),
        failed=failed,
        executed=executed,
        skipped=skipped,
        runner=spec or "stored traces",
    )


def incomplete_runs(stage: Stage) -> list[dict[str, Any]]:
    """Runs whose traces are incomplete, with the reasons (for the completeness check)."""
    return [
        {
            "trace_id": run.trace_id,
            "item_id": run.eval_context.item_id,
            "run_index": run.eval_context.run_index,
            "reasons": list(run.completeness_reasons),
        }
        for run in stored_runs(stage)
        if not run.complete
    ]
