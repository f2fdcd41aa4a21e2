"""Judge calibration: agreement of the current judge with human labels, and its ceiling check."""

import dagster as dg

from eval_pipeline.defs.metadata import typed_metadata
from eval_pipeline.defs.resources import EvalHomeResource, JudgeResource
from eval_pipeline.evaluation import calibration_stage


def make_judge_calibration(judge_code_version: str) -> dg.AssetsDefinition:
    """``judge_calibration`` for the configured judge (its fingerprint is the code version)."""

    @dg.asset(group_name="judges", code_version=judge_code_version)
    def judge_calibration(
        eval_home: EvalHomeResource, judge: JudgeResource
    ) -> dg.MaterializeResult:
        """Agreement of the configured judge with human labels on the calibration set.

        Accuracy, Cohen's kappa, false-pass rate (the judge passes what humans failed) and
        false-fail rate, with bootstrap intervals, overall and per slice. One materialisation
        per judge fingerprint (the code version): stale when the judge model or rubric changes.
        """
        home = eval_home.home()
        summary = calibration_stage.calibrate_current_judge(home, judge.judge(home))
        return dg.MaterializeResult(metadata=typed_metadata(summary))

    return judge_calibration


@dg.asset_check(asset="judge_calibration", blocking=True)
def judge_false_pass_rate_is_under_ceiling(
    eval_home: EvalHomeResource, judge: JudgeResource
) -> dg.AssetCheckResult:
    """The judge's false-pass rate is under the strictest active risk tier's ceiling.

    When it is not, gating on this judge's metrics is blocked: the gate fails them.
    """
    home = eval_home.home()
    verdict = calibration_stage.ceiling_verdict(home, judge.judge(home).fingerprint.digest)
    return dg.AssetCheckResult(
        passed=verdict["passed"],
        severity=dg.AssetCheckSeverity.ERROR,
        description=verdict["reason"],
        metadata=typed_metadata(verdict),
    )
