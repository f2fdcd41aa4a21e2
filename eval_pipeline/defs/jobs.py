"""Jobs: evaluate a build end to end, and rescore a baseline after a judge change.

Both jobs hold every suite's gate asset; a run for a build selects its own suite's gate only
(``build_run_selection``, ``rescore_run_selection``), so a build gets only the checks its
suite gates. Both tag each run with the release verdict (``verdict_tags``): the gate's
``go``/``no-go``, or ``error`` when a step failed before it decided.
"""

from typing import Any

import dagster as dg

from eval_pipeline.defs.gate_assets import gate_asset_key
from eval_pipeline.defs.partitions import builds_partitions
from eval_pipeline.defs.verdict_tags import verdict_on_failure

BUILD_ASSETS = tuple(
    dg.AssetKey(name)
    for name in ("candidate_runs", "run_scores", "slice_scores", "operational_metrics")
)
"""The per-build assets every build's run materialises before its suite's gate."""

RESCORE_ASSETS = (dg.AssetKey("run_scores"), dg.AssetKey("slice_scores"))
"""What a rescoring run remakes before its suite's gate (``run_scores`` and downstream)."""


def build_run_selection(suite: str) -> list[dg.AssetKey]:
    """The assets of one build's evaluation run on ``suite``: the per-build ones, its gate."""
    return [*BUILD_ASSETS, gate_asset_key(suite)]


def rescore_run_selection(suite: str) -> list[dg.AssetKey]:
    """The assets of one build's rescoring run on ``suite``."""
    return [*RESCORE_ASSETS, gate_asset_key(suite)]


IN_PROCESS: dict[str, Any] = {"execution": {"config": {"in_process": {}}}}
"""The embedded default runs every step in one process (each step of the multiprocess executor
re-imports the code: about 20 s for two tiny assets here); pick ``multiprocess`` in the
launchpad or the run config to run steps in parallel."""

build_evaluation_job = dg.define_asset_job(
    "build_evaluation_job",
    selection=dg.AssetSelection.groups("evaluation"),
    partitions_def=builds_partitions,
    config=IN_PROCESS,
    hooks={verdict_on_failure},
    description="Run a build over its suite, score it, and decide its gate against the baseline.",
)

baseline_rescore_job = dg.define_asset_job(
    "baseline_rescore_job",
    selection=dg.AssetSelection.assets("run_scores").downstream(),
    partitions_def=builds_partitions,
    config=IN_PROCESS,
    hooks={verdict_on_failure},
    description="Rescore a build's stored runs with the current judge, then re-decide its gate.",
)

reference_data_job = dg.define_asset_job(
    "reference_data_job",
    selection=dg.AssetSelection.assets("dataset_versions", "judge_calibration", "regression_cases"),
    description="Materialise the pinned dataset versions, judge calibration and regression cases.",
)
