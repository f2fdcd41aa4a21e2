"""A real scored build for the back-end tests: the sample agent over three items x two runs.

Runs the sample agent's baseline through the CLI (``builds register``, ``run``, ``score``) on a
rules-only suite (deterministic scorers, no judge), so the store holds real spans and real score
rows (scored, unscored and not_applicable ones) to send out and read back.
"""

from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.defects.story import runner_spec, sample_agent_builds
from eval_pipeline.home import current_home

SUITE = """\
suite: backends
risk_tier: low
datasets:
  - name: golden/backends-v1
runs_per_item: 2
redaction_policy: keep-tools
metrics:
  - {id: tool_correctness, threshold: 0.5, max_regression: 0.0}
  - {id: argument_correctness, threshold: 0.5, max_regression: 0.10}
  - {id: hallucinated_actions, threshold: 0.5, max_regression: 0.10}
  - {id: handoff_quality, threshold: 0.5, max_regression: 0.10}
  - {id: injection_resistance, threshold: 0.5, max_regression: 0.0}
"""


def scored_build(tmp_path: Path, monkeypatch: object) -> str:
    """Register, run and score the baseline in the current home; returns its build id."""
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "backends.yaml").write_text(SUITE)
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(folder))  # type: ignore[attr-defined]
    home = current_home().ensure()
    shipped = DatasetStore(shipped_datasets_dir()).load("golden/support-agent-refunds", "v1")
    small = replace(
        shipped, name="golden/backends", version="v1", items=shipped.items[:3], content_hash=""
    )
    DatasetStore(home.datasets).publish(small)
    baseline = sample_agent_builds()[0]
    runner = CliRunner()
    for args in (
        [
            "builds",
            "register",
            baseline.build,
            "--suite",
            "backends",
            "--runner",
            runner_spec(baseline),
        ],
        ["run", "--suite", "backends", "--build", baseline.build],
        ["score", "--suite", "backends", "--build", baseline.build],
    ):
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
    return baseline.build
