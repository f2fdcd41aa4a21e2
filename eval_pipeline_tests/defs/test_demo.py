"""``eval-pipeline demo``: the main job, end to end on the embedded default.

Contract: on an empty home, the demo (baseline and improved candidate; the seeded defects are
covered by ``eval-pipeline defects`` and the graph tests) materialises the reference assets and
both builds' partitions on the persistent SQLite instance under the home, prints the
candidate's gate report, and the candidate is released (not blocking) against the baseline.
"""

import dagster as dg
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
    assert "not gated" not in candidate_row and candidate_row.split()[-2] == "go"
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
