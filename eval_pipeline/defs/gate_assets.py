"""The release gate as an asset, with one blocking check per gated metric and budget."""

from collections.abc import Sequence

import dagster as dg

from eval_pipeline.defs.metadata import typed_metadata
from eval_pipeline.defs.partitions import builds_partitions
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.evaluation import stages


def gate_check_name(metric_id: str) -> str:
    """The asset-check name for a gated metric or budget (``gate_<id>``)."""
    return f"gate_{metric_id}".replace(".", "_").replace("@", "_")


def make_gate_decision(gated_ids: Sequence[str]) -> dg.AssetsDefinition:
    """``gate_decision`` with a blocking check for each of ``gated_ids`` (metrics and budgets)."""
    specs = [
        dg.AssetCheckSpec(
            gate_check_name(gated),
            asset="gate_decision",
            blocking=True,
            description=f"Gate verdict on {gated}: fails on a broken floor, a missing score, "
            "or a regression beyond the margin (and on inconclusive where the tier forbids it).",
        )
        for gated in gated_ids
    ]

    @dg.asset(
        partitions_def=builds_partitions,
        group_name="evaluation",
        deps=["run_scores", "operational_metrics", "judge_calibration"],
        check_specs=specs,
    )
    def gate_decision(
        context: dg.AssetExecutionContext, eval_home: EvalHomeResource
    ) -> dg.MaterializeResult:
        """The release decision for one build against its suite's pinned baseline.

        Per metric (and per metric x slice): candidate and baseline means, delta, a clustered
        bootstrap interval on candidate - baseline, floor, margin, verdict
        (pass / fail / inconclusive) with the reason and the worst items' trace ids. Budgets:
        p95 latency and cost per task. A judge over its ceiling (``judge_calibration``'s
        check) cannot pass its metrics, and a pinned dataset that fails validation fails every
        metric. The report is stored as JSON in the home. Stale when either build's scores
        change, the judge's calibration changes or the baseline is re-pinned.
        """
        stage = stages.load_stage(eval_home.home(), context.partition_key)
        outcome = stages.decide_gate(stage)
        results = []
        for gated in gated_ids:
            check = outcome.check(gated)
            results.append(
                dg.AssetCheckResult(
                    check_name=gate_check_name(gated),
                    passed=check.passed,
                    severity=dg.AssetCheckSeverity.ERROR,
                    description=check.reason,
                    metadata=typed_metadata(check.metadata),
                )
            )
        return dg.MaterializeResult(
            metadata=typed_metadata(outcome.metadata()), check_results=results
        )

    return gate_decision
