"""Real tau2 retail tasks run as scripted conversations with the sample agent, scored.

Contract (``python -m benchmarks tau2-conversations``): the covered tasks (the sample agent's
tools and database: 31 of tau2's 114 retail tasks) are run through the one orchestrator, one
session per (task, run), every session ended and scored by every session metric with no
missing row (none unscored, none errored). Whether the agent resolves a task is a figure the
test does not fix.
"""

from pathlib import Path

from click.testing import CliRunner

from benchmarks.cli import bench
from benchmarks.tau2_conversations import METRICS, _agent_tools, covered, run
from eval_pipeline.importers.benchmarks.tau2_conversation import import_multi_turn
from eval_pipeline.sample_agent.retail_db import RetailDB

DATA = Path(__file__).resolve().parents[2] / "data" / "taubench"


def test_covered_tasks_are_the_sample_agents_31() -> None:
    items = import_multi_turn([DATA / "tau2" / "retail_tasks.json.gz"]).items
    db, tools = RetailDB(), _agent_tools()
    chosen = [i.item_id for i in items if covered(i, db, tools)]
    assert len(chosen) == 31
    assert "tau2-retail-0" not in chosen  # an exchange: no such tool in the sample agent
    assert "tau2-retail-113" in chosen  # cancel all pending orders


def test_a_handful_of_tasks_form_sessions_scored_with_no_missing_rows(tmp_path: Path) -> None:
    result = run(runs=1, limit=4, home=tmp_path)
    assert (result["tasks"], result["sessions"], result["expected_runs"]) == (4, 4, 4)
    assert result["failed_runs"] == 0
    assert sum(result["ended_by"].values()) == 4
    assert 1 <= result["mean_turns"] <= 10
    for metric in METRICS:
        figures = result[metric]
        assert figures["unscored"] == 0 and figures["errors"] == 0, (metric, figures)
        assert figures["n"] >= 1 and 0.0 <= figures["mean"] <= 1.0
    assert result["session.goal_completed"]["n"] == 4


def test_the_command_prints_the_figures() -> None:
    out = CliRunner().invoke(bench, ["tau2-conversations", "--limit", "1"])
    assert out.exit_code == 0, out.output
    assert "tasks: 1" in out.output and "session.goal_completed" in out.output
