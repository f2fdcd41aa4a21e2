"""The release gate: one asset per suite, with one blocking check per metric and budget it gates.

Why one asset per suite (``gate_decision/<suite>``) rather than one ``gate_decision`` with a
check for every metric any suite gates: Dagster declares checks per asset, not per partition,
so a single asset showed every build all the checks of every suite, most of them passing as
"not gated by this build's suite". A per-suite asset declares exactly its suite's metrics and
budgets; its checks are partitioned by build (``partitions_def`` on the spec, preview in
Dagster 1.13), so each build's partition page holds the verdicts of that build only. All gate
assets share ``builds_partitions``, so they sit in one job with the other per-build assets; a
build's run selects the gate asset of its own suite only (``defs.jobs.build_run_selection``).
"""

import warnings
from collections.abc import Mapping, Sequence

import dagster as dg

from eval_pipeline.defs.metadata import (
    budget_check_metadata,
    image_metadata,
    metric_check_metadata,
    typed_metadata,
)
from eval_pipeline.defs.partitions import builds_partitions
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.defs.verdict_tags import tag_release
from eval_pipeline.evaluation import stages
from eval_pipeline.evaluation.gate_stage import GateOutcome
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.report.gate_plots import write_gate_plots
from eval_pipeline.report.inputs import ReportInputs, gather_inputs
from eval_pipeline.report.trace_links import TraceLinks, TraceUrlTemplateError, trace_links

PLOT_METADATA = {
    "forest": "forest_plot",
    "distributions": "score_distributions",
    "calibration": "judge_calibration_plot",
}
"""Gate plot -> the metadata entry holding it (and ``<entry>_image`` inline)."""

TOP_REGRESSIONS = 10
"""Rows of the gate asset's ``what_changed`` table (``eval-pipeline compare`` shows all)."""

GATE_PREFIX = "gate_decision"
"""First part of every gate asset's key: ``gate_decision/<suite>``."""


def gate_asset_key(suite: str) -> dg.AssetKey:
    """The key of ``suite``'s gate asset."""
    return dg.AssetKey([GATE_PREFIX, suite])


def gate_check_name(gated_id: str) -> str:
    """The asset-check name for a gated metric or budget (``gate_<id>``)."""
    return f"gate_{gated_id}".replace(".", "_").replace("@", "_")


def suite_gated_ids() -> dict[str, tuple[str, ...]]:
    """Every known suite -> its metric ids, then the ids of the budgets it sets (``budget_*``)."""
    from eval_pipeline.suites.config import load_suite
    from eval_pipeline.suites.locate import suite_files

    gates: dict[str, tuple[str, ...]] = {}
    for path in suite_files():
        suite = load_suite(path)
        budgets = tuple(
            f"budget_{name}"
            for name, limit in suite.budgets.model_dump().items()
            if limit is not None
        )
        gates[suite.suite] = (*suite.metric_ids, *budgets)
    return gates


def stage_report_inputs(stage: Stage, *, with_traces: bool = True) -> ReportInputs:
    """What the report and the gate asset's plots show of a gated build (``report.inputs``).

    Adds what only the evaluation layer knows: the calibration of the judge that scored the
    build, on the set the suite names, with the false-pass ceiling of the suite's own tier.
    """
    from eval_pipeline.evaluation.calibration_stage import stored_report, tier_ceiling
    from eval_pipeline.evaluation.suite_parts import judged_metrics

    calibration = None
    digest = stage.registry.scored_with().get(stage.build)
    if stage.suite.judge is not None and digest:
        stored = stored_report(stage.home, digest, stage.suite.judge.calibration_set)
        if stored is not None:
            tier = stage.suite.risk_tier
            calibration = {**stored, "ceiling": tier_ceiling(tier), "ceiling_tier": tier}
    from eval_pipeline.report.suite_history import suite_history

    history = suite_history(stage.home, stage.suite.suite, stage.suite.metric_ids)
    return gather_inputs(
        stage.home,
        stage.build,
        calibration=calibration,
        judged_metrics=judged_metrics(stage.suite),
        with_traces=with_traces,
        history=history if with_traces else None,
    )


def what_changed_md(stage: Stage, baseline: str | None, links: TraceLinks) -> str:
    """The build's largest regressions against its baseline, as a Markdown table."""
    from eval_pipeline.compare.comparison import ComparisonInputError, compare_builds
    from eval_pipeline.compare.render import regressions_table

    if baseline is None:
        return "No baseline: nothing to compare with."
    try:
        comparison = compare_builds(stage.home, stage.build, baseline, details=False, limit=None)
    except ComparisonInputError as exc:
        return f"Not compared: {exc}"
    return regressions_table(comparison, TOP_REGRESSIONS, links.trace if links.external else None)


def _trace_links_md(trace_ids: Sequence[str], links: TraceLinks, build: str) -> str:
    """The worst items' traces as Markdown links into the configured tracing UI."""
    return "\n".join(f"- [{t}]({links.trace(t, build)})" for t in trace_ids)


def check_result(outcome: GateOutcome, gated: str, links: TraceLinks) -> dg.AssetCheckResult:
    """One check's result: passed, the reason, and the metadata a release manager reads.

    Severity says whether the finding stops the release: a check fails with ERROR only when
    its metric or budget blocks under the suite's risk tier (then the run is ``no-go``), and
    with WARN when its verdict is not a pass but the tier lets it through (an inconclusive
    metric on a low tier); WARN does not block the run. ``blocks_release`` says the same in
    the metadata. With a trace URL template configured (``EVAL_PIPELINE_TRACE_URL``), the
    worst items' traces are also links into that tracing UI (``trace_links``); the Dagster UI
    cannot open the report's own trace pages, so without one the ids stay text.
    """
    check = outcome.check(gated)
    if gated.startswith("budget_"):
        name = gated.removeprefix("budget_")
        budgets = [b for b in outcome.report.budgets if b.budget == name]
        metadata = budget_check_metadata(budgets[0]) if budgets else {}
    else:
        metadata = metric_check_metadata(outcome.report.metric(gated))
        if links.external and metadata["trace_ids"]:
            metadata["trace_links_md"] = _trace_links_md(
                metadata["trace_ids"], links, outcome.build
            )
    metadata = {"build": outcome.build, **metadata}  # whichever execution a page shows
    finding = metadata.get("verdict", "pass") != "pass"
    return dg.AssetCheckResult(
        check_name=gate_check_name(gated),
        passed=check.passed and not finding,
        severity=dg.AssetCheckSeverity.ERROR if not check.passed else dg.AssetCheckSeverity.WARN,
        description=check.reason,
        metadata=typed_metadata(metadata),
    )


def check_description(suite: str, gated: str) -> str:
    """What a gate check verifies and what of it blocks the release (shown on its page)."""
    if gated.startswith("budget_"):
        what = f"budget {gated.removeprefix('budget_')} (p95 and its interval against the limit)"
    else:
        what = f"metric {gated} (floor, and the regression against the pinned baseline)"
    return (
        f"Gate verdict of suite {suite} on {what}, for the selected build. Blocks the release "
        "(fails with severity ERROR, the run is tagged verdict=no-go) on a broken floor or "
        "limit, missing scores, a regression beyond the margin, or an inconclusive result the "
        f"suite's risk tier does not let pass. A finding the tier lets pass (inconclusive on a "
        "low tier) fails with severity WARN and does not block."
    )


def _check_specs(suite: str, key: dg.AssetKey, gated_ids: Sequence[str]) -> list[dg.AssetCheckSpec]:
    """One blocking check per gated id, partitioned by build like the asset."""
    return [
        dg.AssetCheckSpec(
            gate_check_name(gated),
            asset=key,
            blocking=True,
            partitions_def=builds_partitions,
            description=check_description(suite, gated),
        )
        for gated in gated_ids
    ]


def make_gate_decision(suite: str, gated_ids: Sequence[str]) -> dg.AssetsDefinition:
    """``gate_decision/<suite>`` with a partitioned blocking check for each of ``gated_ids``."""
    key = gate_asset_key(suite)
    with warnings.catch_warnings():  # partitioned checks are preview (see build_assets)
        warnings.filterwarnings("ignore", category=dg.PreviewWarning)
        specs = _check_specs(suite, key, gated_ids)

    @dg.asset(
        key=key,
        partitions_def=builds_partitions,
        group_name="evaluation",
        deps=["run_scores", "operational_metrics", "judge_calibration"],
        check_specs=specs,
        description=f"The release decision for a build of suite {suite} against the suite's "
        "pinned baseline.",
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
        metric. The report is stored as JSON in the home, its plots as PNGs beside it (the
        forest plot: delta and interval per metric and slice against the margin; the score
        distributions, candidate against baseline; the judge's calibration), shown here too
        (see ``image_metadata``). Stale when
        either build's scores change, the judge's calibration changes or the baseline is
        re-pinned. Refused for a build of another suite (its gate is that suite's asset). The
        run is tagged ``verdict=go`` or ``verdict=no-go`` (``verdict_tags``) before the checks
        are evaluated, so a blocked build reads as blocked, not as crashed.
        """
        stage = stages.load_stage(eval_home.home(), context.partition_key)
        if stage.suite.suite != suite:
            raise dg.Failure(
                f"build {stage.build} is evaluated on suite {stage.suite.suite}, not {suite}: "
                f"materialise {gate_asset_key(stage.suite.suite).to_user_string()} instead"
            )
        try:
            links = trace_links()
        except TraceUrlTemplateError as exc:
            raise dg.Failure(str(exc)) from exc
        outcome = stages.decide_gate(stage)
        tag_release(context, outcome.passed)
        plots = write_gate_plots(stage.home, stage_report_inputs(stage, with_traces=False))
        images: dict[str, dg.MetadataValue] = {}
        for name, path in plots.items():
            images.update(image_metadata(PLOT_METADATA[name], path))
        changed = dg.MetadataValue.md(what_changed_md(stage, outcome.baseline, links))
        return dg.MaterializeResult(
            metadata={**typed_metadata(outcome.metadata()), **images, "what_changed": changed},
            check_results=[check_result(outcome, gated, links) for gated in gated_ids],
        )

    return gate_decision


def make_gate_decisions(gates: Mapping[str, Sequence[str]]) -> list[dg.AssetsDefinition]:
    """One gate asset per suite (``suite_gated_ids()`` gives ``gates``)."""
    return [make_gate_decision(suite, gated) for suite, gated in sorted(gates.items())]
