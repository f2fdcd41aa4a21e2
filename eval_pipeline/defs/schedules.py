"""Schedules: rescore baseline partitions whose judge fingerprint differs from the current one.

The job is named, not passed, as in ``sensors``: Dagster does not export the asset-job type.
"""

import dagster as dg

from eval_pipeline.builds import stale_baselines
from eval_pipeline.defs.resources import EvalHomeResource


def make_baseline_rescore_schedule(job_name: str, judge_digest: str) -> dg.ScheduleDefinition:
    """Daily: request a rescoring run for exactly the baselines scored by another judge."""

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
        stale = stale_baselines(registry.baselines(), registry.scored_with(), judge_digest)
        if not stale:
            return dg.SkipReason(f"every baseline is scored with judge {judge_digest}")
        return [
            dg.RunRequest(partition_key=build, run_key=f"rescore:{build}:{judge_digest}")
            for build in stale
        ]

    return baseline_rescore_daily_schedule
