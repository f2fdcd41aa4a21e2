"""Dataset versions pinned by the suites, their validation, and the regression cases.

The production assets (sample, scores, online scores, drift) are ``online_assets``.
"""

import dagster as dg

from eval_pipeline.defs.metadata import typed_metadata
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.evaluation import dataset_stage


@dg.asset(group_name="datasets")
def dataset_versions(eval_home: EvalHomeResource) -> dg.MaterializeResult:
    """The dataset versions the suites pin (golden, regression, adversarial, benchmark slices).

    Grain: one row per dataset name x version, with owner, kind, item count, content hash and
    provenance. Versions are immutable: an edited item is a new version. Stale when a suite
    pins another version.
    """
    return dg.MaterializeResult(
        metadata=typed_metadata(dataset_stage.pinned_dataset_summary(eval_home.home()))
    )


@dg.asset_check(asset=dataset_versions, blocking=True)
def datasets_are_valid(eval_home: EvalHomeResource) -> dg.AssetCheckResult:
    """great_expectations suites pass on every pinned dataset.

    Unique item ids, expected tools present in the tool schema, slice labels present,
    references non-empty; failures are listed per dataset. Blocks the release: a failure
    (severity ERROR) refuses every build on the dataset and fails every gated metric.
    """
    result = dataset_stage.validate_pinned_datasets(eval_home.home())
    return dg.AssetCheckResult(
        passed=bool(result["success"]),
        severity=dg.AssetCheckSeverity.ERROR,
        metadata=typed_metadata(result),
    )


@dg.asset(group_name="datasets")
def regression_cases(eval_home: EvalHomeResource) -> dg.MaterializeResult:
    """Triaged production failures turned into regression cases, with their traces attached.

    Grain: one row per regression dataset version (cases, newest triage note). Grows with
    ``eval-pipeline triage``; stale whenever a new version is published.
    """
    return dg.MaterializeResult(
        metadata=typed_metadata(dataset_stage.regression_summary(eval_home.home()))
    )
