"""Build the Definitions from the objects in this folder (definitions.py only calls this)."""

import dagster as dg

from eval_pipeline.defs import (
    build_assets,
    dataset_assets,
    gate_assets,
    judge_assets,
    online_assets,
    validation_assets,
)
from eval_pipeline.defs.jobs import (
    baseline_rescore_job,
    build_evaluation_job,
    reference_data_job,
)
from eval_pipeline.defs.resources import build_resources
from eval_pipeline.defs.schedules import make_baseline_rescore_schedule
from eval_pipeline.defs.sensors import make_candidate_build_sensor, make_flagged_trace_sensor
from eval_pipeline.evaluation.planning import judge_code_version


def build_definitions() -> dg.Definitions:
    """Assets, checks, jobs, the sensors and the schedule.

    The suites' judge fingerprints make the code version of judge-scored assets, so the UI
    shows them stale when a suite's judge changes.
    """
    digest = judge_code_version()
    return dg.Definitions(
        assets=[
            dataset_assets.dataset_versions,
            dataset_assets.regression_cases,
            *online_assets.PRODUCTION_ASSETS,
            build_assets.candidate_runs,
            build_assets.make_run_scores(digest),
            build_assets.slice_scores,
            build_assets.operational_metrics,
            *gate_assets.make_gate_decisions(gate_assets.suite_gated_ids()),
            judge_assets.make_judge_calibration(digest),
            validation_assets.defect_validation,
        ],
        asset_checks=[
            build_assets.traces_are_complete,
            build_assets.every_run_is_scored,
            dataset_assets.datasets_are_valid,
            judge_assets.judge_false_pass_rate_is_under_ceiling,
        ],
        jobs=[
            build_evaluation_job,
            baseline_rescore_job,
            reference_data_job,
            online_assets.production_scoring_job,
        ],
        sensors=[
            make_candidate_build_sensor(build_evaluation_job.name),
            make_flagged_trace_sensor(online_assets.production_scoring_job.name),
        ],
        schedules=[make_baseline_rescore_schedule(baseline_rescore_job.name)],
        resources=build_resources(),
        executor=dg.multi_or_in_process_executor,
    )
