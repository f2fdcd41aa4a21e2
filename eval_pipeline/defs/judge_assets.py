"""Judge calibration: agreement of the suites' judges with human labels, and the ceiling check."""

import dagster as dg

from eval_pipeline.defs.metadata import typed_metadata
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.evaluation import calibration_stage


def make_judge_calibration(judge_code_version: str) -> dg.AssetsDefinition:
    """``judge_calibration`` for the suites' judges (their fingerprints make the code version)."""

    @dg.asset(group_name="judges", code_version=judge_code_version)
    def judge_calibration(eval_home: EvalHomeResource) -> dg.MaterializeResult:
        """Agreement of each suite's judge with human labels on the set the suite names.

        Per label set: accuracy, balanced accuracy, Cohen's kappa, false-pass rate (the judge
        passes what humans failed) and false-fail rate with percentile bootstrap intervals,
        the confusion matrix (``<set>:agreement``, Markdown) and the alignment adopted for the
        judge (``eval-pipeline judges align``), if any. Stale when a suite's judge model or
        rubric changes (``judges align`` calibrates the judge it adopts itself). Scoring a
        build calibrates its judge too when this has not run, so the gate trusts a judge the
        same way on every path.
        """
        summary = calibration_stage.calibrate_suite_judges(eval_home.home())
        return dg.MaterializeResult(metadata=typed_metadata(summary))

    return judge_calibration


@dg.asset_check(asset="judge_calibration", blocking=True)
def judge_false_pass_rate_is_under_ceiling(eval_home: EvalHomeResource) -> dg.AssetCheckResult:
    """Each suite's judge has a false-pass rate under the strictest tier's ceiling using it.

    Blocks the release of builds scored by a judge over its ceiling (severity ERROR): the
    gate cannot pass that judge's metrics.
    """
    verdict = calibration_stage.ceiling_verdict(eval_home.home())
    return dg.AssetCheckResult(
        passed=verdict["passed"],
        severity=dg.AssetCheckSeverity.ERROR,
        description=verdict["reason"],
        metadata=typed_metadata(verdict),
    )
