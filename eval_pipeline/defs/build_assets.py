"""The per-build assets: candidate runs, their scores, per-slice scores, operational metrics.

Each asset is a thin shell over one function in ``eval_pipeline.evaluation.stages``; the data
lives in the trace and score stores of the eval-pipeline home, the assets record what was made
as typed metadata.
"""

import warnings

import dagster as dg

from eval_pipeline.defs.metadata import typed_metadata
from eval_pipeline.defs.partitions import builds_partitions
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.evaluation import stages

# Partitioned checks are "preview" in Dagster 1.13; without a partitions_def a check on a
# partitioned asset would load every partition (its warning is silenced here, on purpose).
warnings.filterwarnings(
    "ignore",
    category=dg.PreviewWarning,
    message=".*partitions_def on an AssetCheckSpec.*",
)


@dg.asset(
    partitions_def=builds_partitions,
    group_name="evaluation",
    deps=["dataset_versions"],
    kinds={"parquet"},
)
def candidate_runs(
    context: dg.AssetExecutionContext, eval_home: EvalHomeResource
) -> dg.MaterializeResult:
    """Traces of one build over its suite's items x runs_per_item, one agent run per trace.

    Grain: one run per build x dataset item x run index, stored as spans in the trace store
    (Parquet, partitioned by build). A build registered with a runner is executed now; a build
    whose traces were ingested or imported (replay) is read as stored. Refused (the step
    fails, nothing downstream runs) when a pinned dataset fails validation, the condition
    ``datasets_are_valid`` checks upstream. Stale when the build is re-registered or its
    suite's pinned datasets change.
    """
    stage = stages.load_stage(eval_home.home(), context.partition_key)
    summary = stages.collect_runs(stage)
    return dg.MaterializeResult(metadata=typed_metadata(summary.metadata()))


@dg.asset_check(asset=candidate_runs, blocking=False, partitions_def=builds_partitions)
def traces_are_complete(
    context: dg.AssetCheckExecutionContext, eval_home: EvalHomeResource
) -> dg.AssetCheckResult:
    """Every run has a root invoke_agent, a tool span per requested call, tokens on inference.

    Blocks nothing: an incomplete run fails this check with severity WARN and is still scored
    (what its scorers cannot see is ``unscored``, which ``every_run_is_scored`` counts).
    """
    stage = stages.load_stage(eval_home.home(), context.partition_key)
    incomplete = stages.incomplete_runs(stage)
    return dg.AssetCheckResult(
        passed=not incomplete,
        severity=dg.AssetCheckSeverity.WARN,
        metadata=typed_metadata(
            {
                "incomplete_runs": len(incomplete),
                "incomplete": incomplete[:50],
            }
        ),
    )


def make_run_scores(judge_code_version: str) -> dg.AssetsDefinition:
    """``run_scores``, its code version the suites' judge fingerprints (stale when one changes)."""

    @dg.asset(
        partitions_def=builds_partitions,
        group_name="evaluation",
        deps=[candidate_runs],
        code_version=judge_code_version,
        kinds={"parquet"},
    )
    def run_scores(
        context: dg.AssetExecutionContext, eval_home: EvalHomeResource
    ) -> dg.MaterializeResult:
        """Long scores table: one row per build x item x run x metric.

        Each row is ``scored`` (a value in [0, 1]), ``unscored`` (with the reason) or
        ``error``, with the scorer id and version, the judge fingerprint for judge-based
        metrics, the trace and span ids as evidence, and the item's slice labels. Stale when
        the candidate runs change or the judge fingerprint (this asset's code version) changes.
        """
        stage = stages.load_stage(eval_home.home(), context.partition_key)
        summary = stages.score_runs(stage)
        return dg.MaterializeResult(metadata=typed_metadata(summary.metadata()))

    return run_scores


@dg.asset_check(asset="run_scores", blocking=True, partitions_def=builds_partitions)
def every_run_is_scored(
    context: dg.AssetCheckExecutionContext, eval_home: EvalHomeResource
) -> dg.AssetCheckResult:
    """Every item x run x suite metric has a ``scored`` row; lists the missing ones.

    Blocks the release: a build with a missing score fails with severity ERROR and gets no
    gate decision (its run is tagged ``verdict=error``), because a gate that passes on an
    evaluation that silently did not run is decoration.
    """
    stage = stages.load_stage(eval_home.home(), context.partition_key)
    missing = stages.missing_scores(stage)
    return dg.AssetCheckResult(
        passed=not missing,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata=typed_metadata({"missing_scores": len(missing), "missing": missing[:100]}),
    )


@dg.asset(
    partitions_def=builds_partitions,
    group_name="evaluation",
    deps=["run_scores"],
)
def slice_scores(
    context: dg.AssetExecutionContext, eval_home: EvalHomeResource
) -> dg.MaterializeResult:
    """Per-slice aggregates: one row per build x metric x slice value (mean, n, unscored, pass^k).

    Shown as a Markdown table per slice dimension, so a slice that collapses while the average
    holds is visible here before the gate. Stale when ``run_scores`` changes.
    """
    stage = stages.load_stage(eval_home.home(), context.partition_key)
    return dg.MaterializeResult(metadata=typed_metadata(stages.slice_summary(stage)))


@dg.asset(
    partitions_def=builds_partitions,
    group_name="evaluation",
    deps=[candidate_runs],
)
def operational_metrics(
    context: dg.AssetExecutionContext, eval_home: EvalHomeResource
) -> dg.MaterializeResult:
    """Operational telemetry per build and slice, derived from spans.

    Duration percentiles of agent, tool and model operations (in the spirit of
    ``gen_ai.invoke_agent.duration``, ``gen_ai.execute_tool.duration`` and
    ``gen_ai.client.operation.duration``), tokens, cost from the versioned price table (never a
    cost the agent reports about itself) and tool error rates. Stale when the runs change.
    """
    stage = stages.load_stage(eval_home.home(), context.partition_key)
    return dg.MaterializeResult(metadata=typed_metadata(stages.operational_summary(stage)))
