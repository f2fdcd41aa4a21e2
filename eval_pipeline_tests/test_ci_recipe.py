"""The CI recipe (``examples/ci``) works as written, offline, in a temporary home.

``examples/ci/gate.sh`` is run by bash with the installed ``eval-pipeline`` command on PATH, on
the sample agent: it runs and scores the baseline once (pinning it), runs, scores and gates the
candidate, writes the JUnit report and the standalone HTML report as artefacts, and exits with
the gate's code. A seeded defect's candidate makes the script exit 1 (the release blocked), its
JUnit names the failing metric, the cached baseline is not run again, and the report is kept
either way. About a dozen CLI processes: marked slow. The GitHub Actions workflow
is valid YAML whose gate job runs the script and uploads the artefacts.
"""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from eval_pipeline.defects.story import runner_spec, sample_agent_builds
from eval_pipeline.home import current_home
from eval_pipeline_tests.cli.small_suite import METRICS, small_suite

REPO = Path(__file__).resolve().parents[1]
RECIPE = REPO / "examples" / "ci"
BASELINE, CANDIDATE, DEFECTS, _ = sample_agent_builds()


@pytest.fixture
def ci_env(tmp_path: Path) -> dict[str, str]:
    """A home with a small published dataset, its suite file, and `eval-pipeline` on PATH."""
    suite = small_suite(tmp_path, "ci", items=6)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "eval-pipeline"
    command.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c 'from eval_pipeline.cli import main; main()' \"$@\"\n"
    )
    command.chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "EVAL_PIPELINE_HOME": str(current_home().root),
        "SUITE": str(suite),
        "BASELINE": BASELINE.build,
        "BASELINE_RUNNER": runner_spec(BASELINE),
        "OUT": str(tmp_path / "artefacts"),
    }


def _gate(env: dict[str, str], candidate: str, runner: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(RECIPE / "gate.sh")],
        env={**env, "CANDIDATE": candidate, "RUNNER": runner},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _junit_failures(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    return [c.get("name", "") for c in root.iter("testcase") if c.find("failure") is not None]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_gate_script_runs_scores_gates_and_keeps_the_report(ci_env: dict[str, str]) -> None:
    out = Path(ci_env["OUT"])
    released = _gate(ci_env, CANDIDATE.build, runner_spec(CANDIDATE))
    assert released.returncode == 0, released.stdout + released.stderr
    assert _junit_failures(out / "gate.xml") == []
    assert (out / "report" / f"{CANDIDATE.build}.html").read_text().startswith("<!DOCTYPE html>")
    scores = json.loads((out / "scores.json").read_text())
    assert set(scores["metrics"]) == set(METRICS)
    assert json.loads((out / "baseline-build.json").read_text())["baseline"] == BASELINE.build
    assert json.loads((out / "runs.json").read_text())["executed_now"] == 12

    defect = next(d for d in DEFECTS if d.target_metric == "hallucinated_actions")
    (out / "baseline-build.json").unlink()
    blocked = _gate(ci_env, defect.build, runner_spec(defect))
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert not (out / "baseline-build.json").exists()  # the cached baseline is not redone
    failing = _junit_failures(out / "gate.xml")
    assert failing and set(failing) <= {*METRICS, "p95_latency_s"}, failing
    assert (out / "report" / f"{defect.build}.html").exists()


def test_the_workflow_runs_the_script_and_keeps_the_artefacts() -> None:
    workflow = yaml.safe_load((RECIPE / "github-actions.yml").read_text())
    gate_steps = workflow["jobs"]["gate"]["steps"]
    assert any(step.get("run") == "bash ci/gate.sh" for step in gate_steps)
    upload = next(s for s in gate_steps if str(s.get("uses", "")).startswith("actions/upload"))
    assert upload["if"] == "always()" and upload["with"]["path"] == "eval-artefacts/"
