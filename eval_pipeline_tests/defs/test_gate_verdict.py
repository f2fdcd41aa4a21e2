"""Go, no-go and a crash are three different things in Dagster.

Contract (issue 32): a build's run carries the tag ``verdict=go|no-go|error``: ``go`` and
``no-go`` from the gate's decision, ``error`` when the evaluation broke before a decision (a
crashed run fails ``every_run_is_scored``, so the gate never runs). The gate asset materialises
with the release verdict as metadata; its blocking checks fail with severity ERROR only where
the finding blocks the release, with WARN where it does not (an inconclusive metric a low tier
lets pass), and say in their metadata whether they block the release (not ``blocking``, which
the UI prints under "This is a blocking asset check"). Every asset check's description says
what blocks.
"""

from pathlib import Path

import dagster as dg
import pytest

from eval_pipeline.defs.gate_assets import check_result
from eval_pipeline.defs.launch import evaluate_build
from eval_pipeline.evaluation.gate_stage import GateOutcome
from eval_pipeline.gate.decision import GateReport, MetricDecision, MissingCount
from eval_pipeline.report.trace_links import trace_links
from eval_pipeline_tests.defs.agents import CRASHING
from eval_pipeline_tests.defs.graph_env import GraphEnv, make_graph_env


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GraphEnv:
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(tmp_path / "suites"))
    return make_graph_env(tmp_path)


def verdict_tag(env: GraphEnv, result: dg.ExecuteInProcessResult) -> str | None:
    run = env.instance.get_run_by_id(result.run_id)
    assert run is not None
    return run.tags.get("verdict")


def gate_checks(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetCheckEvaluation]:
    return {
        e.check_name: e
        for e in result.get_asset_check_evaluations()
        if e.asset_key.path[0] == "gate_decision"
    }


def test_go_no_go_and_a_crash_are_told_apart_on_the_run(env: GraphEnv) -> None:
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    env.register("liar", "defect-claims-unissued-refunds")
    env.register("crashed", "baseline", runner=f"{CRASHING}&fail_item={env.items[0]}")
    defs = env.definitions()
    go = evaluate_build(defs, env.instance, "base")
    no_go = evaluate_build(defs, env.instance, "liar")
    crashed = evaluate_build(defs, env.instance, "crashed")

    assert go.success and verdict_tag(env, go) == "go"
    assert not no_go.success and verdict_tag(env, no_go) == "no-go"
    assert not crashed.success and verdict_tag(env, crashed) == "error"

    # The blocked build's gate asset materialised, with the release verdict as metadata.
    gate = dg.AssetKey(["gate_decision", "mini"])
    materialised = {
        e.asset_key: e.materialization.metadata for e in no_go.get_asset_materialization_events()
    }
    assert materialised[gate]["release"].value == "no-go"
    assert materialised[gate]["verdict"].value == "fail"
    assert materialised[gate]["failing"].value == ["hallucinated_actions"]
    # The finding that blocks fails with ERROR; tool_correctness, inconclusive (a regression
    # plausible but not shown), which the low tier lets pass, fails with WARN; the budget passes.
    checks = gate_checks(no_go)
    failed = checks["gate_hallucinated_actions"]
    assert not failed.passed and failed.severity == dg.AssetCheckSeverity.ERROR
    assert failed.metadata["blocks_release"].value is True
    assert "blocking" not in failed.metadata
    assert failed.metadata["build"].value == "liar"  # names its partition wherever it is shown
    allowed = checks["gate_tool_correctness"]
    assert allowed.metadata["verdict"].value == "inconclusive"
    assert not allowed.passed and allowed.severity == dg.AssetCheckSeverity.WARN
    assert allowed.metadata["blocks_release"].value is False
    assert checks["gate_budget_p95_latency_s"].passed
    assert checks["gate_budget_p95_latency_s"].metadata["blocks_release"].value is False
    # The crashed build never reached the gate: no decision, so no go/no-go either.
    assert gate not in {e.asset_key for e in crashed.get_asset_materialization_events()}
    assert not gate_checks(crashed)


def _inconclusive(blocking: bool) -> GateOutcome:
    decision = MetricDecision(
        metric_id="tool_correctness",
        verdict="inconclusive",
        candidate_mean=0.9,
        baseline_mean=0.92,
        delta=-0.02,
        ci_low=-0.12,
        ci_high=0.08,
        threshold=0.5,
        max_regression=0.1,
        missing=MissingCount(expected=16),
        reason="interval straddles -margin",
        blocking=blocking,
    )
    report = GateReport(verdict="inconclusive", tier="low", metrics=(decision,), budgets=())
    return GateOutcome("cand", "base", report, ("tool_correctness",))


def test_a_finding_that_does_not_block_fails_with_warn_not_error() -> None:
    allowed = check_result(_inconclusive(blocking=False), "tool_correctness", trace_links())
    assert not allowed.passed and allowed.severity == dg.AssetCheckSeverity.WARN
    assert allowed.metadata["blocks_release"].value is False
    blocked = check_result(_inconclusive(blocking=True), "tool_correctness", trace_links())
    assert not blocked.passed and blocked.severity == dg.AssetCheckSeverity.ERROR


def test_every_asset_check_says_what_blocks(env: GraphEnv) -> None:
    graph = env.definitions().resolve_asset_graph()
    keys = graph.asset_check_keys
    assert len(keys) > 4
    for key in keys:
        description = graph.get_check_spec(key).description or ""
        assert (
            "blocks the release" in description.lower() or "blocks nothing" in description.lower()
        ), (
            key,
            description,
        )
