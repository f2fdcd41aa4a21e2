"""Stage 1: the candidate runs of a build (executed now, or read as stored)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eval_pipeline.evaluation.dataset_stage import require_valid_datasets
from eval_pipeline.evaluation.runner_spec import runner_from_spec
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.runners.failure import failure_reason
from eval_pipeline.runners.sink import TraceStoreSink
from eval_pipeline.traces.model import AgentRun, EvalContext
from eval_pipeline.traces.store.trace_store import TraceStore


@dataclass(frozen=True)
class RunsSummary:
    """What ``candidate_runs`` made: counts of runs by outcome.

    ``complete`` counts the runs whose trace is complete and that did not fail: a failed run
    (stored with its reason) has a structurally complete trace, but it is not a complete run.
    ``runs`` counts traces: a multi-turn item's run is a session of one trace per turn, and
    ``sessions`` counts the (item, run index) conversations stored for such items.
    """

    build: str
    expected: int
    runs: int
    complete: int
    failed: int
    executed: int
    skipped: int
    runner: str
    failures: tuple[dict[str, Any], ...] = ()
    sessions: int = 0

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
            "failures": list(self.failures),
            "sessions": self.sessions,
        }


_ASSEMBLED: dict[tuple[str, str], tuple[tuple[tuple[str, str, int], ...], list[AgentRun]]] = {}
"""(store, build) -> (the store's version of the build, its runs): the last assembly kept."""


def stored_runs(stage: Stage) -> list[AgentRun]:
    """The build's runs as stored in the trace store.

    Every stage of a build reads them (runs, completeness, scores, operations); the runs
    assembled from an unchanged store version are reused instead of read and assembled again.
    """
    store = TraceStore(stage.home.store)
    key = (str(stage.home.store), stage.build)
    version = store.version(stage.build)
    kept = _ASSEMBLED.get(key)
    if kept is not None and kept[0] == version:
        return list(kept[1])
    runs = store.runs(stage.build)
    if len(_ASSEMBLED) >= 8:
        _ASSEMBLED.pop(next(iter(_ASSEMBLED)))
    _ASSEMBLED[key] = (version, runs)
    return list(runs)


def collect_runs(
    stage: Stage,
    *,
    concurrency: int = 4,
    timeout_s: float = 60.0,
    retry_failed: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RunsSummary:
    """Execute the build's runner over the suite's items x runs_per_item (resumable).

    Runs already stored for the build are not redone (``retry_failed`` redoes the failed
    ones). A build without a runner is read as stored (its traces were ingested or imported).
    ``progress`` gets (runs finished, runs to do) as the runner goes.

    Raises:
        RunnerSpecError: the runner spec is not one of the accepted forms.
        SuiteResolutionError: a dataset the suite pins fails validation: nothing run on it
            could be trusted, so nothing is run.
    """
    require_valid_datasets(stage)
    executed = skipped = 0
    failures: list[dict[str, Any]] = []
    spec = stage.runner
    if spec:
        sink = TraceStoreSink(TraceStore(stage.home.store), policy=stage.redaction_policy)
        runner = runner_from_spec(spec, sink, timeout_s=timeout_s)
        base = EvalContext(suite=stage.suite.suite, suite_version=stage.suite.version)
        result = runner.run_items(
            stage.dataset_items,
            build=stage.build,
            runs_per_item=stage.runs_per_item,
            concurrency=concurrency,
            retry_failed=retry_failed,
            base_context=base,
            progress=progress,
        )
        summary = result.summary()
        skipped = int(summary.get("skipped", 0))
        executed = len(result.outcomes) - skipped
        failures = [
            {
                "item_id": o.item_id,
                "run_index": o.run_index,
                "reason": o.failure_reason,
                "trace_id": o.trace_id,
            }
            for o in result.failed
        ]
    runs = stored_runs(stage)
    failed = [failure_reason(run.spans) is not None for run in runs]
    conversations = {item.item_id for item in stage.dataset_items if item.multi_turn}
    sessions = {
        (run.eval_context.item_id, run.eval_context.run_index)
        for run in runs
        if run.conversation_id and run.eval_context.item_id in conversations
    }
    return RunsSummary(
        build=stage.build,
        expected=len(stage.items) * stage.runs_per_item,
        runs=len(runs),
        complete=sum(run.complete and not f for run, f in zip(runs, failed, strict=True)),
        failed=sum(failed),
        executed=executed,
        skipped=skipped,
        runner=spec or "stored traces",
        failures=tuple(failures),
        sessions=len(sessions),
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
