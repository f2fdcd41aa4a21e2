"""Jobs: evaluate a build end to end, and rescore a baseline after a judge change."""

from typing import Any

import dagster as dg

from eval_pipeline.defs.partitions import builds_partitions

IN_PROCESS: dict[str, Any] = {"execution": {"config": {"in_process": {}}}}
"""The embedded default runs every step in one process (each step of the multiprocess executor
re-imports the code: about 20 s for two tiny assets here); pick ``multiprocess`` in the
launchpad or the run config to run steps in parallel."""

build_evaluation_job = dg.define_asset_job(
    "build_evaluation_job",
    selection=dg.AssetSelection.groups("evaluation"),
    partitions_def=builds_partitions,
    config=IN_PROCESS,
    description="Run a build over its suite, score it, and decide its gate against the baseline.",
)

baseline_rescore_job = dg.define_asset_job(
    "baseline_rescore_job",
    selection=dg.AssetSelection.assets("run_scores").downstream(),
    partitions_def=builds_partitions,
    config=IN_PROCESS,
    description="Rescore a build's stored runs with the current judge, then re-decide its gate.",
)

reference_data_job = dg.define_asset_job(
    "reference_data_job",
    selection=dg.AssetSelection.assets("dataset_versions", "judge_calibration", "regression_cases"),
    description="Materialise the pinned dataset versions, judge calibration and regression cases.",
)
