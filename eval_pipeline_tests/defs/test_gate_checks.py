"""Gate checks are per suite and per build partition.

Contract (issue 20): each suite has its own gate asset (``gate_decision/<suite>``) declaring one
blocking check per metric and budget that suite gates, partitioned by build; evaluating a build
runs only its own suite's gate, so the build gets exactly its suite's checks, and the Dagster
instance records each check's result under the build's partition, with the metadata a release
manager reads (verdict, delta against the margin, floor, missing by cause, power, every slice,
the worst items' traces).
"""

import base64
import json
from pathlib import Path

import dagster as dg
import pytest

from eval_pipeline.defs.launch import evaluate_build
from eval_pipeline_tests.defs.graph_env import AGENT, GraphEnv, make_graph_env

TOOLS_SUITE = """\
suite: mini-tools
risk_tier: low
datasets:
  - name: golden/mini-v1
runs_per_item: 1
metrics:
  - id: tool_correctness
    threshold: 0.5
    max_regression: 0.10
slices: [intent]
"""
JAEGER = "http://localhost:16686/trace/{trace_id}"
MINI_CHECKS = {"gate_tool_correctness", "gate_hallucinated_actions", "gate_budget_p95_latency_s"}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GraphEnv:
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(tmp_path / "suites"))
    env = make_graph_env(tmp_path)
    (tmp_path / "suites" / "mini-tools.yaml").write_text(TOOLS_SUITE)
    return env


def gate_checks(result: dg.ExecuteInProcessResult) -> dict[dg.AssetCheckKey, bool]:
    return {
        e.asset_check_key: e.passed
        for e in result.get_asset_check_evaluations()
        if e.asset_key.path[0] == "gate_decision"
    }


def test_a_build_gets_only_its_suites_checks_recorded_under_its_partition(
    env: GraphEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_PIPELINE_TRACE_URL", JAEGER)
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    env.register("cand", "defect-claims-unissued-refunds")
    env.registry.register("tools", suite="mini-tools", runner=f"{AGENT}?agent_build=baseline")
    env.registry.pin_baseline("mini-tools", "tools")
    defs = env.definitions()
    evaluate_build(defs, env.instance, "base")
    cand = evaluate_build(defs, env.instance, "cand")
    tools = evaluate_build(defs, env.instance, "tools")

    mini_gate = dg.AssetKey(["gate_decision", "mini"])
    tools_gate = dg.AssetKey(["gate_decision", "mini-tools"])
    assert {k.asset_key for k in gate_checks(cand)} == {mini_gate}
    assert {k.name for k in gate_checks(cand)} == MINI_CHECKS
    assert {k.name: p for k, p in gate_checks(tools).items()} == {"gate_tool_correctness": True}
    assert {k.asset_key for k in gate_checks(tools)} == {tools_gate}
    materialised = {e.asset_key for e in tools.get_asset_materialization_events()}
    assert tools_gate in materialised and mini_gate not in materialised

    storage = env.instance.event_log_storage
    for name in MINI_CHECKS:
        history = storage.get_asset_check_execution_history(dg.AssetCheckKey(mini_gate, name), 10)
        assert sorted(r.partition for r in history) == ["base", "cand"], name
    history = storage.get_asset_check_execution_history(
        dg.AssetCheckKey(tools_gate, "gate_tool_correctness"), 10
    )
    assert [r.partition for r in history] == ["tools"]

    failing = storage.get_asset_check_execution_history(
        dg.AssetCheckKey(mini_gate, "gate_hallucinated_actions"), 10
    )
    record = next(r for r in failing if r.partition == "cand")
    assert record.event is not None and record.event.dagster_event is not None
    evaluation = record.event.dagster_event.event_specific_data
    assert isinstance(evaluation, dg.AssetCheckEvaluation) and not evaluation.passed
    meta = evaluation.metadata
    assert meta["verdict"].value == "fail"
    assert "vs margin -0.05" in str(meta["delta_vs_margin"].value)
    assert meta["floor"].value == 0.8
    assert set(meta["missing_by_cause"].value) == {
        "expected",
        "unscored",
        "error",
        "null",
        "no_row",
    }
    assert "power" in meta
    rows = str(meta["slices"].value).splitlines()[2:]
    report = json.loads((env.home.store / "gates" / "cand.json").read_text())
    stored = next(m for m in report["metrics"] if m["metric_id"] == "hallucinated_actions")
    assert len(rows) == len(stored["slices"]) >= 2  # every slice, passing ones too
    assert {r.split("|")[1].strip() for r in rows} == {
        f"{s['slice']}={s['value']}" for s in stored["slices"]
    }
    traces = meta["trace_ids"].value
    assert traces and all(t in str(meta["worst_items"].value) for t in traces)
    links = str(meta["trace_links"].value).splitlines()  # into the configured tracing UI
    assert links == [f"- [{t}]({JAEGER.replace('{trace_id}', t)})" for t in traces]

    # The gate asset's partition carries the build's plots, each as a file and inline: the
    # forest plot and the score distributions (the mini suite has no judge: no calibration).
    event = next(
        e
        for e in env.instance.fetch_materializations(mini_gate, limit=10).records
        if e.partition_key == "cand"
    ).event_log_entry
    assert event.asset_materialization is not None
    meta = event.asset_materialization.metadata
    for name, file in (("forest_plot", "forest"), ("score_distributions", "distributions")):
        plot = Path(str(meta[name].value))
        assert plot == env.home.store / "gates" / f"cand.{file}.png"
        inline = str(meta[f"{name}_image"].value)
        prefix = f"![{name}](data:image/png;base64,"
        assert inline.startswith(prefix)
        assert base64.b64decode(inline.removeprefix(prefix).rstrip(")")) == plot.read_bytes()
    assert "judge_calibration_plot" not in meta
    # What changed: the largest regressions, each item's candidate traces linked out.
    changed = str(meta["what_changed"].value).splitlines()
    assert changed[0] == f"Largest regressions against `base` ({len(changed) - 4} shown):"
    assert any(row.startswith("| `hallucinated_actions` |") for row in changed[4:])
    assert all(JAEGER.split("{")[0] in row for row in changed[4:])


def test_a_gate_asset_refuses_a_build_of_another_suite(env: GraphEnv) -> None:
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    defs = env.definitions()
    assert evaluate_build(defs, env.instance, "base").success
    job = defs.resolve_job_def("build_evaluation_job")
    result = job.execute_in_process(
        instance=env.instance,
        partition_key="base",
        asset_selection=[dg.AssetKey(["gate_decision", "mini-tools"])],
        raise_on_error=False,
    )
    assert not result.success
    failure = result.get_step_failure_events()[0].step_failure_data.error
    assert failure is not None
    assert "evaluated on suite mini, not mini-tools" in failure.message
