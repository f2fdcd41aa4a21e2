"""Sensors: new builds get an evaluation run, production days with new alerts a scoring run.

A newly registered candidate build gets a partition and an evaluation run; a production day
with new alerts on its traces gets a run of the production scoring job.

The job is named, not passed: ``define_asset_job`` returns a type Dagster does not export, and
the Definitions that hold both resolve the name (an unknown job fails when they load).
"""

import dagster as dg

from eval_pipeline.defs.jobs import BUILD_ASSETS, build_run_selection
from eval_pipeline.defs.partitions import builds_partitions, production_days
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.evaluation.planning import plan_build_requests
from eval_pipeline.evaluation.stages import load_stage
from eval_pipeline.home import Home
from eval_pipeline.realtime.online.planning import plan_flagged_days


def run_selection(home: Home, build: str) -> list[dg.AssetKey]:
    """The build's assets and its suite's gate; without the gate when the suite cannot load.

    A build whose suite is missing or invalid is still requested, so its run's first step
    fails with the suite's error where the UI shows it, and other builds are not held up.
    """
    try:
        suite = load_stage(home, build).suite.suite
    except (LookupError, ValueError, OSError):
        return list(BUILD_ASSETS)
    return build_run_selection(suite)


def make_candidate_build_sensor(job_name: str) -> dg.SensorDefinition:
    """The sensor that turns new registrations in the build registry into runs of ``job_name``."""

    @dg.sensor(
        job_name=job_name,
        minimum_interval_seconds=15,
        default_status=dg.DefaultSensorStatus.RUNNING,
    )
    def candidate_build_sensor(
        context: dg.SensorEvaluationContext, eval_home: EvalHomeResource
    ) -> dg.SensorResult:
        """Request an evaluation run for every build registered since the last tick.

        Each run selects the gate asset of the build's own suite only.
        """
        home = eval_home.home()
        records = eval_home.registry().all()
        plan = plan_build_requests(records, context.cursor)
        if not plan.builds:
            return dg.SensorResult(skip_reason="no newly registered builds", cursor=plan.cursor)
        return dg.SensorResult(
            run_requests=[
                dg.RunRequest(
                    partition_key=build,
                    run_key=f"{build}@{registered}",
                    asset_selection=run_selection(home, build),
                )
                for build, registered in plan.builds
            ],
            dynamic_partitions_requests=[
                builds_partitions.build_add_request([build for build, _ in plan.builds])
            ],
            cursor=plan.cursor,
        )

    return candidate_build_sensor


def make_flagged_trace_sensor(job_name: str) -> dg.SensorDefinition:
    """The sensor that turns new production alerts into scoring runs of their day.

    ``job_name`` is the production scoring job (``online_assets.production_scoring_job``).
    """

    @dg.sensor(
        job_name=job_name,
        minimum_interval_seconds=60,
        default_status=dg.DefaultSensorStatus.RUNNING,
    )
    def flagged_trace_sensor(
        context: dg.SensorEvaluationContext, eval_home: EvalHomeResource
    ) -> dg.SensorResult:
        """Request sampling, scoring, online estimates and drift for each day with new alerts.

        The alerts are the real-time plane's, on production traces, stored since the cursor;
        their traces are sampled at their flags' rates and scored within a minute or so.
        """
        plan = plan_flagged_days(eval_home.home(), context.cursor)
        known = set(production_days.get_partition_keys())
        requests = [d for d in plan.days if d.day in known]
        if not requests:
            return dg.SensorResult(
                skip_reason="no new alerts on production traces", cursor=plan.cursor
            )
        return dg.SensorResult(
            run_requests=[
                dg.RunRequest(
                    partition_key=d.day,
                    run_key=d.run_key,
                    tags={"flagged_alerts": str(d.alerts), "flagged_traces": str(len(d.traces))},
                )
                for d in requests
            ],
            cursor=plan.cursor,
        )

    return flagged_trace_sensor
