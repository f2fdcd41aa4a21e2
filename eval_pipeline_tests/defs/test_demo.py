"""``eval-pipeline demo``: the main job, end to end on the embedded default.

Contract: on an empty home, the demo (baseline and improved candidate; the seeded defects are
covered by ``eval-pipeline defects`` and the graph tests) materialises the reference assets and
both builds' partitions on the persistent SQLite instance under the home, prints the
candidate's gate report, and the candidate is released (not blocking) against the baseline.
``--format json`` gives each build's outcome and the candidate's gate JSON (slow: a second demo).
"""

import json

import dagster as dg
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.defs.launch import local_instance
from eval_pipeline.home import current_home


def test_demo_gates_the_candidate_against_the_baseline() -> None:
    result = CliRunner().invoke(cli, ["demo", "--no-defects"])
    assert result.exit_code == 0, result.output
    assert "== gate: support-candidate-improved vs baseline support-baseline ==" in result.output
    assert "tool_correctness" in result.output and "budgets:" in result.output
    table = result.output.split("== every build of the story ==")[1]
    candidate_row = next(r for r in table.splitlines() if "support-candidate-improved" in r)
    assert "not gated" not in candidate_row and "no-go" not in candidate_row
    assert " go" in candidate_row, candidate_row  # released ("go" or "go, with warnings")
    assert candidate_row.split()[-1] == "-", candidate_row  # nothing blocking
    with local_instance(current_home()) as instance:
        assert sorted(instance.get_dynamic_partitions("builds")) == [
            "support-baseline",
            "support-candidate-improved",
        ]
        gate = instance.get_latest_materialization_event(
            dg.AssetKey(["gate_decision", "support-agent"])
        )
        assert gate is not None


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_demo_json_gives_every_build_and_the_candidates_gate() -> None:
    result = CliRunner().invoke(cli, ["demo", "--no-defects", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # no terminal: no progress display
    document = json.loads(result.stdout)
    builds = {b["build"]: b for b in document["builds"]}
    assert set(builds) == {"support-baseline", "support-candidate-improved"}
    assert builds["support-candidate-improved"]["release"].startswith("go")
    assert document["gate"]["verdict"] == builds["support-candidate-improved"]["verdict"]
    assert document["gate"]["baseline"] == document["baseline"] == "support-baseline"
