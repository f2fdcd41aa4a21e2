"""The asset graph, materialised in process for registered builds of the sample agent.

Contract (issue 6): the sensor turns a registration into a partition and a run request; a
build whose runs are all scored gets a gate decision with one check per gated metric; a build
with a missing score fails ``every_run_is_scored`` and gets no gate decision; a regressing build
fails the gate check of the metric it regresses, with the worst items' trace ids as evidence;
a judge change makes exactly the baselines scored by the old judge stale, and the rescoring
schedule requests only those.
"""

from pathlib import Path

import dagster as dg
import pytest
from dagster._core.definitions.data_version import CachingStaleStatusResolver, StaleStatus
from dagster._core.loader import LoadingContextForTest

from eval_pipeline.defs.jobs import BUILD_ASSETS, build_run_selection
from eval_pipeline.defs.launch import evaluate_build
from eval_pipeline.evaluation.stages import load_stage, missing_scores
from eval_pipeline_tests.defs.graph_env import SUITE, GraphEnv, make_graph_env
from eval_pipeline_tests.judges.chat_server import chat_server


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GraphEnv:
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(tmp_path / "suites"))
    return make_graph_env(tmp_path)


def checks_of(result: dg.ExecuteInProcessResult) -> dict[str, dg.AssetCheckEvaluation]:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def materialised(result: dg.ExecuteInProcessResult) -> set[str]:
    return {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}


def test_sensor_adds_the_partition_and_requests_the_run(env: GraphEnv) -> None:
    env.register("base", "baseline")
    defs = env.definitions()
    sensor = defs.resolve_sensor_def("candidate_build_sensor")
    # Called directly: the daemon applies the partition request before resolving run requests.
    result = sensor(dg.build_sensor_context(instance=env.instance, resources=defs.resources))
    assert isinstance(result, dg.SensorResult)
    assert [r.partition_key for r in result.run_requests or []] == ["base"]
    # The run selects the build's own suite's gate only.
    assert [r.asset_selection for r in result.run_requests or []] == [build_run_selection("mini")]
    added = [p for r in result.dynamic_partitions_requests or [] for p in r.partition_keys or []]
    assert added == ["base"]
    again = sensor(
        dg.build_sensor_context(
            instance=env.instance, cursor=result.cursor, resources=defs.resources
        )
    )
    assert isinstance(again, dg.SensorResult) and not again.run_requests


def test_scored_build_is_gated_with_a_check_per_metric(env: GraphEnv) -> None:
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    env.register("cand", "candidate-improved")
    defs = env.definitions()
    assert evaluate_build(defs, env.instance, "base").success
    result = evaluate_build(defs, env.instance, "cand")
    assert result.success
    assert "gate_decision/mini" in materialised(result)
    checks = checks_of(result)
    assert checks["every_run_is_scored"].passed
    for metric in (
        "gate_tool_correctness",
        "gate_hallucinated_actions",
        "gate_budget_p95_latency_s",
    ):
        assert checks[metric].passed, checks[metric].description


def test_missing_score_fails_the_check_and_blocks_the_gate(env: GraphEnv) -> None:
    env.register(
        "flaky",
        "baseline",
        runner="python:eval_pipeline_tests.defs.agents:fails_on_first_item"
        f"?agent_build=baseline&fail_item={env.items[0]}",
    )
    result = evaluate_build(env.definitions(), env.instance, "flaky")
    assert not result.success
    checks = checks_of(result)
    assert not checks["every_run_is_scored"].passed
    assert "gate_decision/mini" not in materialised(result)
    missing = missing_scores(load_stage(env.home, "flaky"))
    assert {m["item_id"] for m in missing} == {env.items[0]}
    assert all("simulated crash" in m["reason"] for m in missing)


def test_regressing_build_fails_its_metric_check_with_evidence(env: GraphEnv) -> None:
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    env.register("liar", "defect-claims-unissued-refunds")
    defs = env.definitions()
    evaluate_build(defs, env.instance, "base")
    result = evaluate_build(defs, env.instance, "liar")
    check = checks_of(result)["gate_hallucinated_actions"]
    assert not check.passed
    traces = check.metadata["trace_ids"].value
    assert traces and all(t in check.metadata["worst_items"].value for t in traces)
    # tool_correctness regresses inside its margin's reach: inconclusive, which the low tier lets
    # pass, so its check fails as a warning (it does not block the release).
    allowed = checks_of(result)["gate_tool_correctness"]
    assert not allowed.passed and allowed.severity == dg.AssetCheckSeverity.WARN
    assert allowed.metadata["verdict"].value == "inconclusive"


def test_judge_change_stales_exactly_the_old_baselines(env: GraphEnv, tmp_path: Path) -> None:
    suite_file = tmp_path / "suites" / "mini.yaml"
    judged = SUITE + "judge: {model: offline-minilm, rubric_version: '1', calibration_set: %s}\n"
    suite_file.write_text(judged % "human-labels/agent-faithfulness-v1")
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    old = env.definitions()
    evaluate_build(old, env.instance, "base")
    verdict = {"score": 1.0, "passed": True, "reason": "ok", "details": {"claims": []}}
    with chat_server([("ok", verdict)] * 200) as server:
        # The suite now names another judge (served on loopback): its fingerprint changes.
        suite_file.write_text(
            SUITE
            + "judge: {model: judge-model-pinned, rubric_version: '1', "
            + f"calibration_set: human-labels/agent-faithfulness-v1, base_url: '{server.url}'}}\n"
        )
        new = env.definitions()
        env.register("cand", "candidate-improved", baseline="base")
        evaluate_build(new, env.instance, "cand", raise_on_error=True)

    graph = new.get_repository_def().asset_graph
    resolver = CachingStaleStatusResolver(env.instance, graph, LoadingContextForTest(env.instance))
    key = dg.AssetKey("run_scores")
    assert resolver.get_status(key, "base") == StaleStatus.STALE
    assert resolver.get_status(key, "cand") == StaleStatus.FRESH

    schedule = new.resolve_schedule_def("baseline_rescore_daily_schedule")
    requests = schedule(dg.build_schedule_context(instance=env.instance, resources=new.resources))
    assert [r.partition_key for r in requests] == ["base"]


def evaluation_job() -> dg.JobDefinition:
    """Module-level, so the multiprocess executor can reconstruct the job in each step."""
    from eval_pipeline.defs.assemble import build_definitions

    return build_definitions().resolve_job_def("build_evaluation_job")


@pytest.mark.slow  # several minutes: each step a process importing dagster
def test_the_multiprocess_executor_runs_the_graph_too(env: GraphEnv) -> None:
    from eval_pipeline.defs.launch import local_instance

    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")  # gated as the suite's first baseline
    with local_instance(env.home) as instance:
        instance.add_dynamic_partitions("builds", ["base"])
        result = dg.execute_job(
            dg.reconstructable(evaluation_job),
            instance,
            run_config={"execution": {"config": {"multiprocess": {"max_concurrent": 2}}}},
            tags={"dagster/partition": "base"},
            asset_selection=build_run_selection("mini"),
        )
        assert result.success
        keys = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
        assert {"candidate_runs", "run_scores", "gate_decision/mini"} <= keys


def test_the_sensor_still_requests_a_build_whose_suite_cannot_load(env: GraphEnv) -> None:
    env.registry.register("lost", suite="no-such-suite")
    defs = env.definitions()
    sensor = defs.resolve_sensor_def("candidate_build_sensor")
    result = sensor(dg.build_sensor_context(instance=env.instance, resources=defs.resources))
    assert isinstance(result, dg.SensorResult)
    assert [r.asset_selection for r in result.run_requests or []] == [list(BUILD_ASSETS)]
