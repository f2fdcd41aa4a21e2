"""``eval-pipeline demo``: the whole story, materialised through the asset graph in-process.

The sample support agent (``eval_pipeline/sample_agent``, a documented simulator) is registered as
a baseline, an improved candidate and seeded-defect builds. The reference assets (pinned
datasets, judge calibration) are materialised first, then each build's partition of the
evaluation job, on the persistent Dagster instance under ``EVAL_PIPELINE_HOME`` so the UI shows
the result afterwards.
"""

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dagster as dg

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.defects.story import register_story, story_builds
from eval_pipeline.defects.validate import SeededBuild
from eval_pipeline.defs.assemble import build_definitions
from eval_pipeline.defs.gate_assets import GATE_PREFIX
from eval_pipeline.defs.launch import evaluate_build, local_instance, quiet_run_config
from eval_pipeline.home import Home
from eval_pipeline.report.stored import gate_report_path


@dataclass(frozen=True)
class DemoResult:
    """The gate outcome of every build of the story."""

    baseline: str
    outcomes: dict[str, dict[str, Any]]
    builds: tuple[SeededBuild, ...]


def run_demo(
    home: Home,
    *,
    include_defects: bool = True,
    progress: Callable[[str], None] | None = None,
    advance: Callable[[int, int], None] | None = None,
) -> DemoResult:
    """Register the story's builds and evaluate each through the asset graph, once.

    ``progress`` gets a line as each step starts and ends; ``advance`` gets (steps done,
    steps in all): the reference data, then each build.
    """
    say = progress or (lambda line: None)
    step = advance or (lambda done, total: None)
    # The A/A control is the defects check's (`eval-pipeline defects`), not the demo's.
    builds = story_builds(include_defects, include_control=False)
    register_story(home, builds)
    registry = BuildRegistry(home.state_url)
    baseline = builds[0].build
    defs = build_definitions()
    outcomes: dict[str, dict[str, Any]] = {}
    with local_instance(home) as instance:
        step(0, len(builds) + 1)
        started = time.perf_counter()
        say("reference data: pinned datasets, judge calibration, regression cases ...")
        reference = defs.resolve_job_def("reference_data_job")
        # A judge that fails calibration is reported by its blocking check, not raised: the
        # gate then refuses to pass on that judge's metrics.
        reference.execute_in_process(
            instance=instance, raise_on_error=False, run_config=quiet_run_config()
        )
        say(f"reference data: done in {time.perf_counter() - started:.1f} s")
        step(1, len(builds) + 1)
        for index, entry in enumerate(builds, start=1):
            started = time.perf_counter()
            say(f"[{index}/{len(builds)}] {entry.build}: run, score, gate ({entry.description})")
            result = evaluate_build(defs, instance, entry.build, run_config=quiet_run_config())
            registry.mark_requested([entry.build])
            outcome = _outcome(home, entry.build, result)
            outcomes[entry.build] = outcome
            failing = ", ".join(outcome["failing"]) or "-"
            say(
                f"[{index}/{len(builds)}] {entry.build}: {outcome['verdict']} "
                f"(failing: {failing}) in {time.perf_counter() - started:.1f} s"
            )
            step(index + 1, len(builds) + 1)
    return DemoResult(baseline=baseline, outcomes=outcomes, builds=builds)


def _outcome(home: Home, build: str, result: dg.ExecuteInProcessResult) -> dict[str, Any]:
    """The build's gate verdict, or the checks that kept it from being gated."""
    gated = any(
        event.asset_key is not None and event.asset_key.path[0] == GATE_PREFIX
        for event in result.get_asset_materialization_events()
    )
    report = gate_report_path(home, build)
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
