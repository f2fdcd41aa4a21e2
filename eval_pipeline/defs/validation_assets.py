"""The gate's own validation: seeded-defect builds of the sample agent must fail their metric."""

import json

import dagster as dg

from eval_pipeline.defs.metadata import typed_metadata
from eval_pipeline.defs.resources import EvalHomeResource


@dg.asset(
    group_name="validation",
    check_specs=[
        dg.AssetCheckSpec(
            "every_defect_is_caught",
            asset="defect_validation",
            blocking=True,
            description="Each seeded defect fails the gate on the metric it targets, the "
            "improved candidate passes, and an A/A rerun of the baseline passes. Blocks "
            "nothing (no asset depends on it, no build's release waits on it): a failure "
            "(severity ERROR) says the gate cannot be trusted to catch these defects.",
        )
    ],
)
def defect_validation(eval_home: EvalHomeResource) -> dg.MaterializeResult:
    """Seeded-defect validation of the shipped support-agent suite's gate.

    Grain: one row per seeded build of the sample agent (renamed argument, skipped
    confirmation, stale policy index, obeyed injection, claimed-but-unissued refunds, slow,
    expensive, hand-off without order ids) plus the improved candidate and an A/A control,
    with the verdict on the targeted metric. If a defect passes, the metric or its threshold
    is wrong. Stale when the suite, a scorer or the gate changes; about 3 minutes on 2 cores.
    """
    from eval_pipeline.defects.story import validate_sample_agent

    report = validate_sample_agent(eval_home.home())
    document = report.to_json()
    (eval_home.home().store / "defect_validation.json").write_text(json.dumps(document, indent=2))
    return dg.MaterializeResult(
        metadata=typed_metadata({"ok": report.ok, "table_md": report.table()}),
        check_results=[
            dg.AssetCheckResult(
                check_name="every_defect_is_caught",
                passed=report.ok,
                severity=dg.AssetCheckSeverity.ERROR,
                metadata=typed_metadata({"report": document}),
            )
        ],
    )
