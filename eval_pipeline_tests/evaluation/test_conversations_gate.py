"""Conversations are run, scored and gated like runs, through the one orchestrator (the CLI).

Contract: on the shipped ``support-conversations`` suite (6 scripted conversations, 2 runs
each, session metrics only), ``eval-pipeline run`` drives the sample agent turn by turn,
``score`` scores each expected (item, run) session with the session registry, and ``gate``
clusters by item like runs: the clean build is released against the pinned baseline (and the
baseline on its own, as a first baseline), the build that forgets the order id given in turn 1
fails ``session.knowledge_retention``, the build that loops asking for confirmation fails
``session.repeated_user_requests`` (lower is better: gated on 1 - value) and neither fails the
other's metric. Materialised by Dagster (the build partitions' evaluation job), the same builds
get the same verdicts and blocking checks.
"""

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home

SUITE = ("--suite", "support-conversations")
RUNNER = "python:eval_pipeline.sample_agent.app:run_item?agent_build={}"


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def _build(build: str, agent: str, *pin: str) -> None:
    assert _cli("builds", "register", build, *SUITE, "--runner", RUNNER.format(agent), *pin)
    ran = _cli("run", *SUITE, "--build", build)
    assert ran.exit_code == 0
    summary = json.loads(ran.output)
    assert (summary["expected_runs"], summary["sessions"], summary["failed_runs"]) == (12, 12, 0)
    assert _cli("score", *SUITE, "--build", build).exit_code == 0


def _gate(candidate: str, *baseline: str) -> tuple[int, dict[str, str]]:
    result = _cli("gate", *SUITE, "--candidate", candidate, *baseline, "--format", "json")
    report = json.loads(result.output)
    return result.exit_code, {m["metric_id"]: m["verdict"] for m in report["metrics"]}


def test_clean_released_and_each_conversation_defect_fails_its_metric(
    isolated_home: Path,
) -> None:
    _build("conv-base", "baseline", "--pin-baseline")
    code, verdicts = _gate("conv-base")
    assert code == 0, verdicts
    stored = _cli("sessions", "list", "--build", "conv-base", "--format", "json").output
    sessions = json.loads(stored)
    assert len(sessions) == 12
    assert all(s["ended"] and s["end_detail"] == "script_done" for s in sessions)
    assert {s["turns"] for s in sessions} == {3}

    _build("conv-clean", "baseline")
    code, verdicts = _gate("conv-clean", "--baseline", "conv-base")
    assert code == 0 and "fail" not in verdicts.values(), verdicts

    _build("conv-forgets", "defect-forgets-order-id")
    code, verdicts = _gate("conv-forgets", "--baseline", "conv-base")
    assert code == 1
    assert verdicts["session.knowledge_retention"] == "fail"
    assert verdicts["session.repeated_user_requests"] == "pass"

    _build("conv-loops", "defect-loops-confirmation")
    code, verdicts = _gate("conv-loops", "--baseline", "conv-base")
    assert code == 1
    assert verdicts["session.repeated_user_requests"] == "fail"
    assert verdicts["session.knowledge_retention"] == "pass"


def test_dagster_materialisation_gives_the_same_verdicts(isolated_home: Path) -> None:
    import dagster as dg

    from eval_pipeline.builds import BuildRegistry
    from eval_pipeline.defs.assemble import build_definitions
    from eval_pipeline.defs.launch import evaluate_build

    home = current_home().ensure()
    registry = BuildRegistry(home.state_url)
    builds = {"conv-base": "baseline", "conv-forgets": "defect-forgets-order-id"}
    builds["conv-loops"] = "defect-loops-confirmation"
    for build, agent in builds.items():
        registry.register(build, suite="support-conversations", runner=RUNNER.format(agent))
    registry.pin_baseline("support-conversations", "conv-base")
    defs = build_definitions()
    failing = {}
    with dg.DagsterInstance.ephemeral() as instance:
        for build in builds:
            result = evaluate_build(defs, instance, build)
            checks = result.get_asset_check_evaluations()
            failing[build] = sorted(
                c.check_name for c in checks if c.check_name.startswith("gate_") and not c.passed
            )
    assert failing["conv-base"] == []
    assert "gate_session_knowledge_retention" in failing["conv-forgets"]
    assert "gate_session_repeated_user_requests" not in failing["conv-forgets"]
    assert "gate_session_repeated_user_requests" in failing["conv-loops"]
    assert "gate_session_knowledge_retention" not in failing["conv-loops"]
    gate = json.loads((home.store / "gates" / "conv-loops.json").read_text())
    verdicts = {m["metric_id"]: m["verdict"] for m in gate["metrics"]}
    assert verdicts["session.repeated_user_requests"] == "fail"
