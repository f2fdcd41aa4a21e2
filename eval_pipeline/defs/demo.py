"""``eval-pipeline demo``: the whole story, materialised through the asset graph in-process.

The sample support agent (``eval_pipeline/sample_agent``, a documented simulator) is registered as
a baseline, an improved candidate and seeded-defect builds. The reference assets (pinned
datasets, judge calibration) are materialised first, then each build's partition of the
evaluation job, on the persistent Dagster instance under ``EVAL_PIPELINE_HOME`` so the UI shows
the result afterwards.
"""

import json
from dataclasses import dataclass
from typing import Any

import dagster as dg

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.defs.assemble import build_definitions
from eval_pipeline.defs.launch import evaluate_build, local_instance, quiet_run_config
from eval_pipeline.home import Home

DEMO_SUITE = "support-agent"
AGENT_ENTRY = "python:eval_pipeline.sample_agent.app:run_item"


@dataclass(frozen=True)
class DemoBuild:
    """One build of the story: its registry id, agent configuration, and target metric."""

    build: str
    agent_build: str
    target_metric: str | None


@dataclass(frozen=True)
class DemoResult:
    """The gate outcome of every build of the story."""

    baseline: str
    outcomes: dict[str, dict[str, Any]]
    builds: tuple[DemoBuild, ...]


def demo_builds(include_defects: bool = True) -> tuple[DemoBuild, ...]:
    """Baseline, improved candidate and (optionally) every seeded defect."""
    from eval_pipeline.sample_agent.builds import BASELINE, DEFECTS, IMPROVED

    configs = [BASELINE, IMPROVED, *(DEFECTS if include_defects else ())]
    return tuple(DemoBuild(f"support-{c.name}", c.name, c.target_metric) for c in configs)


def run_demo(home: Home, *, include_defects: bool = True) -> DemoResult:
    """Register the story's builds and evaluate each through the asset graph."""
    builds = demo_builds(include_defects)
    registry = BuildRegistry(home.ensure().state_url)
    baseline = builds[0].build
    for entry in builds:
        registry.register(
            entry.build,
            suite=DEMO_SUITE,
            baseline=None if entry.build == baseline else baseline,
            runner=f"{AGENT_ENTRY}?agent_build={entry.agent_build}",
        )
    from eval_pipeline.suites.config import load_suite
    from eval_pipeline.suites.locate import locate_suite

    registry.pin_baseline(load_suite(locate_suite(DEMO_SUITE)).suite, baseline)
    defs = build_definitions()
    outcomes: dict[str, dict[str, Any]] = {}
    with local_instance(home) as instance:
        reference = defs.resolve_job_def("reference_data_job")
        # A judge that fails calibration is reported by its blocking check, not raised: the
        # gate then refuses to pass on that judge's metrics.
        reference.execute_in_process(
            instance=instance, raise_on_error=False, run_config=quiet_run_config()
        )
        for entry in builds:
            result = evaluate_build(defs, instance, entry.build, run_config=quiet_run_config())
            registry.mark_requested([entry.build])
            outcomes[entry.build] = _outcome(home, entry.build, result)
    return DemoResult(baseline=baseline, outcomes=outcomes, builds=builds)


def _outcome(home: Home, build: str, result: dg.ExecuteInProcessResult) -> dict[str, Any]:
    """The build's gate verdict, or the checks that kept it from being gated."""
    gated = any(
        event.asset_key == dg.AssetKey("gate_decision")
        for event in result.get_asset_materialization_events()
    )
    report = home.store / "gates" / f"{build}.json"
    if not gated or not report.exists():
        failed = [
            evaluation.check_name
            for evaluation in result.get_asset_check_evaluations()
            if not evaluation.passed
        ]
        failed += [
            f"step {event.step_key} crashed: {event.step_failure_data.error.message.strip()}"
            for event in result.get_step_failure_events()
            if event.step_failure_data.error is not None
            and "DagsterAssetCheckFailedError" not in (event.step_failure_data.error.cls_name or "")
        ]
        return {"verdict": "not gated", "release": "no-go", "failing": failed, "report": None}
    data = json.loads(report.read_text())
    failing = [m["metric_id"] for m in data["metrics"] if m.get("blocking")]
    failing += [b["budget"] for b in data["budgets"] if b.get("blocking")]
    release = (
        "no-go"
        if data.get("blocking")
        else ("go" if data["verdict"] == "pass" else "go, with warnings")
    )
    return {"verdict": data["verdict"], "release": release, "failing": failing, "report": data}
