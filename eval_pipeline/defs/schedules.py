"""Schedules: rescore baseline partitions whose judge fingerprint differs from their suite's.

The job is named, not passed, as in ``sensors``: Dagster does not export the asset-job type.
"""

import dagster as dg

from eval_pipeline.builds import stale_baselines
from eval_pipeline.defs.jobs import rescore_run_selection
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.evaluation.planning import suite_judge_digests


def make_baseline_rescore_schedule(job_name: str) -> dg.ScheduleDefinition:
    """Daily: request a rescoring run of ``job_name`` for exactly the stale baselines."""

    @dg.schedule(
        job_name=job_name,
        cron_schedule="0 3 * * *",
        execution_timezone="UTC",
        default_status=dg.DefaultScheduleStatus.RUNNING,
    )
    def baseline_rescore_daily_schedule(
        context: dg.ScheduleEvaluationContext, eval_home: EvalHomeResource
    ) -> list[dg.RunRequest] | dg.SkipReason:
        """Only stale partitions are requested, and the run key makes repeats idempotent."""
        registry = eval_home.registry()
        current = suite_judge_digests(eval_home.home().state_url)  # with adopted alignments
        scored_with = registry.scored_with()
        stale = stale_baselines(registry.baselines(), scored_with, current)
        if not stale:
            return dg.SkipReason("every baseline is scored with its suite's current judge")
        digests = {build: suite for suite, build in registry.baselines().items()}
        return [
            dg.RunRequest(
                partition_key=build,
                run_key=f"rescore:{build}:{current[digests[build]]}",
                asset_selection=rescore_run_selection(digests[build]),
            )
            for build in stale
        ]

    return baseline_rescore_daily_schedule
