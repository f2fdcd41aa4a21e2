"""The production feedback loop's assets, one partition per UTC day of traffic.

``production_sample`` (traces sampled with known inclusion probabilities) ->
``production_scores`` (the sample scored by the production suite's scorers, as offline) ->
``online_scores`` (traffic estimates per metric and slice, weighted by inverse inclusion
probability, beside the deployed build's offline scores) -> ``drift`` (with the check
``traffic_resembles_datasets``). The ``flagged_trace_sensor`` (``defs/sensors.py``) requests
``production_scoring_job`` for a day as soon as the real-time plane stores alerts on it.
"""

import dagster as dg

from eval_pipeline.defs.jobs import IN_PROCESS
from eval_pipeline.defs.metadata import typed_metadata
from eval_pipeline.defs.partitions import production_days
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.realtime.feedback.store import FeedbackStore
from eval_pipeline.realtime.online.drift import MAX_SLICE_TVD, MIN_N, drift_report
from eval_pipeline.realtime.online.sample import DEFAULT_PRODUCTION_SUITE, sample_production_day
from eval_pipeline.realtime.online.scores import online_scores as estimate_online_scores
from eval_pipeline.realtime.online.scoring import score_production_day

DRIFT_CHECK = "traffic_resembles_datasets"


class ProductionConfig(dg.Config):
    """Which suite production traffic is scored on (its risk tier sets the sampling rates)."""

    suite: str = DEFAULT_PRODUCTION_SUITE


class SampleConfig(ProductionConfig):
    """The production suite, and a base rate overriding its tier's (a backfill, a study)."""

    base_rate: float | None = None


class DriftConfig(ProductionConfig):
    """The production suite and the drift thresholds."""

    max_slice_tvd: float = MAX_SLICE_TVD
    min_n: int = MIN_N


@dg.asset(group_name="production", partitions_def=production_days)
def production_sample(
    context: dg.AssetExecutionContext, config: SampleConfig, eval_home: EvalHomeResource
) -> dg.MaterializeResult:
    """Production traces sampled for batch scoring, one partition per UTC day.

    Grain: one row per sampled trace with its inclusion probability and the reasons for it.
    Each trace is taken with the highest rate that applies to it in the production suite's
    risk tier: the base rate, a rate per flag kind the real-time plane's alerts or the
    detectors raised, the thumbs-down rate; decided by a hash of the trace id (reproducible).
    """
    home = eval_home.home()
    thumbs_down = FeedbackStore(home.state_url).thumbs_down_trace_ids()
    return dg.MaterializeResult(
        metadata=typed_metadata(
            sample_production_day(
                home,
                context.partition_key,
                thumbs_down=thumbs_down,
                suite=config.suite,
                rate=config.base_rate,
            )
        )
    )


@dg.asset(group_name="production", partitions_def=production_days, deps=[production_sample])
def production_scores(
    context: dg.AssetExecutionContext, config: ProductionConfig, eval_home: EvalHomeResource
) -> dg.MaterializeResult:
    """The day's sampled traces scored by the production suite's scorers and judge.

    Grain: one score row per sampled trace x metric (item id = trace id), under the score
    build ``production@<day>``. Scored by the offline path's ``score_build`` with the suite's
    stage; traces scored already are kept, so a sensor's rerun scores only new ones.
    """
    summary = score_production_day(eval_home.home(), context.partition_key, config.suite)
    return dg.MaterializeResult(metadata=typed_metadata(summary))


@dg.asset(group_name="production", partitions_def=production_days, deps=[production_scores])
def online_scores(
    context: dg.AssetExecutionContext, config: ProductionConfig, eval_home: EvalHomeResource
) -> dg.MaterializeResult:
    """Traffic estimates per metric and slice, beside the deployed build's offline scores.

    Online: Hajek means weighted by inverse inclusion probability, with linearised 95%
    intervals. Offline: the suite's pinned baseline (the deployed build), plain means with
    intervals over items. Also the slice mix of the traffic against the datasets'.
    """
    result = estimate_online_scores(eval_home.home(), context.partition_key, config.suite)
    return dg.MaterializeResult(metadata=typed_metadata(result.metadata()))


@dg.asset(
    group_name="production",
    partitions_def=production_days,
    deps=[online_scores],
    check_specs=[
        dg.AssetCheckSpec(
            DRIFT_CHECK,
            asset="drift",
            description="Production traffic still resembles the offline datasets: slice mix "
            "within max_slice_tvd, online and offline means within their intervals. Blocks "
            "nothing (no build is gated on production): drift fails with severity ERROR, a day "
            "that cannot be compared with WARN; the metadata names each drifted slice or metric.",
        )
    ],
)
def drift(
    context: dg.AssetExecutionContext, config: DriftConfig, eval_home: EvalHomeResource
) -> dg.MaterializeResult:
    """Where the offline datasets no longer resemble the day's traffic.

    The check fails on a slice dimension whose traffic mix is further than ``max_slice_tvd``
    (total variation) from the datasets', or a metric (overall or per slice) whose online and
    offline means differ beyond their intervals (Bonferroni over the comparisons); its
    metadata names each one. It also fails (as a warning) when the day cannot be compared.
    """
    scores = estimate_online_scores(eval_home.home(), context.partition_key, config.suite)
    report = drift_report(scores, max_slice_tvd=config.max_slice_tvd, min_n=config.min_n)
    meta = typed_metadata(report.metadata())
    severity = dg.AssetCheckSeverity.ERROR if report.comparable else dg.AssetCheckSeverity.WARN
    return dg.MaterializeResult(
        metadata=meta,
        check_results=[
            dg.AssetCheckResult(
                check_name=DRIFT_CHECK, passed=report.passed, severity=severity, metadata=meta
            )
        ],
    )


PRODUCTION_ASSETS = (production_sample, production_scores, online_scores, drift)

production_scoring_job = dg.define_asset_job(
    "production_scoring_job",
    selection=dg.AssetSelection.assets(*PRODUCTION_ASSETS),
    partitions_def=production_days,
    config=IN_PROCESS,
    description="Sample a production day, score the sample, estimate the traffic, check drift.",
)
