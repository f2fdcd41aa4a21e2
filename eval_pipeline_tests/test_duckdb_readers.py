"""DuckDB reads the stored traces and scores with no code of ours (issue 34).

A home is made through the public command line in subprocesses: the support conversations
(one failed tool call) under ``support`` and two recorded tau-bench runs files (spans and their
``task_success`` scores) under ``tb1``. The SQL blocks of ``docs/duckdb.md`` are then run, as
written, in a separate isolated interpreter (``python -I``) that imports only ``duckdb`` (it
asserts ``eval_pipeline`` was never imported and that no extension is downloaded), with its
working folder in the home as the page says. Their answers must agree with what
``eval-pipeline traces list`` and ``eval-pipeline scores`` report for the same home.
"""

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "duckdb.md"
COMMAND = (sys.executable, "-c", "from eval_pipeline.cli import main; main()")
SET_BUILD = re.compile(r"^SET VARIABLE build = '[^']*';$")

_READER = """
import json, sys
import duckdb
assert "eval_pipeline" not in sys.modules, "the reader imported eval_pipeline"
jobs = json.load(sys.stdin)
connection = duckdb.connect()
connection.execute("SET autoinstall_known_extensions = false")
connection.execute("SET autoload_known_extensions = false")
out = []
for set_build, query in jobs:
    connection.execute(set_build)
    relation = connection.sql(query)
    out.append([dict(zip(relation.columns, row)) for row in relation.fetchall()])
assert "eval_pipeline" not in sys.modules
print(json.dumps(out, default=str))
"""


def doc_queries() -> tuple[str, dict[str, str]]:
    """The page's ``SET VARIABLE build`` line and its named queries (first line ``-- name``)."""
    blocks = re.findall(r"^```sql\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)
    set_build = [b.strip() for b in blocks if SET_BUILD.match(b.strip())]
    assert len(set_build) == 1, blocks
    named = {}
    for block in blocks:
        first = block.partition("\n")[0]
        if first.startswith("-- "):
            named[first.removeprefix("-- ").strip()] = block
    return set_build[0], named


def _cli(home: Path, *args: str) -> str:
    result = subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "EVAL_PIPELINE_HOME": str(home)},
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _duckdb(home: Path, jobs: list[tuple[str, str]]) -> list[list[dict[str, Any]]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    result = subprocess.run(
        [sys.executable, "-I", "-c", _READER],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        cwd=home,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("duckdb") / "home"
    _cli(root, "ingest", "data/conversations", "--build", "support")
    trajectories = sorted(str(p) for p in (REPO / "data/taubench_trajectories").glob("*.json"))
    _cli(root, "ingest", *trajectories, "--build", "tb1")
    return root


def test_the_page_names_the_four_queries() -> None:
    _, named = doc_queries()
    assert set(named) == {
        "spans_of_a_build",
        "failed_tool_calls_per_day",
        "scores_per_metric",
        "scores_with_traces",
    }


def test_duckdb_answers_what_the_cli_reports(home: Path) -> None:
    set_build, named = doc_queries()

    def for_build(build: str) -> str:
        return f"SET VARIABLE build = '{build}';"

    jobs = [
        (for_build("support"), named["spans_of_a_build"]),
        (for_build("tb1"), named["spans_of_a_build"]),
        (set_build, named["failed_tool_calls_per_day"]),
        (for_build("tb1"), named["scores_per_metric"]),
        (for_build("tb1"), named["scores_with_traces"]),
    ]
    spans_support, spans_tb1, failed, per_metric, joined = _duckdb(home, jobs)

    # Spans of a build: the same runs, each with its tool calls in order, as `traces list`.
    for build, spans in (("support", spans_support), ("tb1", spans_tb1)):
        runs = json.loads(_cli(home, "traces", "list", "--build", build, "--format", "json"))
        assert runs and spans
        assert {s["trace_id"] for s in spans} == {r["trace_id"] for r in runs}
        roots = [s for s in spans if s["parent_span_id"] is None]
        assert sorted(s["trace_id"] for s in roots) == sorted(r["trace_id"] for r in runs)
        for run in runs:
            tools = [
                s["tool_name"]
                for s in spans
                if s["trace_id"] == run["trace_id"] and s["operation"] == "execute_tool"
            ]
            assert Counter(tools) == Counter(run["tool_calls"]), run["trace_id"]
            root = next(s for s in roots if s["trace_id"] == run["trace_id"])
            assert root["agent_name"] == run["root_agent"]

    # Failed tool calls per day: the runs `traces list --errors` blames on a tool call.
    errors = json.loads(_cli(home, "traces", "list", "--errors", "--format", "json"))
    tool_errors = [r for r in errors if (r["error"] or "").startswith("execute_tool")]
    assert tool_errors, errors
    assert sum(row["failed_calls"] for row in failed) == len(tool_errors)
    assert {t for row in failed for t in row["trace_ids"]} == {r["trace_id"] for r in tool_errors}
    for run in tool_errors:
        row = next(row for row in failed if run["trace_id"] in row["trace_ids"])
        assert row["call_day"] == run["start_time"][:10]
        assert row["build"] == run["build"]
        assert run["error"].startswith(f"execute_tool {row['tool_name']}")

    # Scores of a build per metric, and joined with the traces they judged.
    scores = json.loads(_cli(home, "scores", "--build", "tb1", "--format", "json"))
    assert scores
    by_metric: dict[str, list[Any]] = {}
    for score in scores:
        by_metric.setdefault(score["metric_id"], []).append(score["value"])
    assert [row["metric_id"] for row in per_metric] == sorted(by_metric)
    for row in per_metric:
        values = by_metric[row["metric_id"]]
        present = [v for v in values if v is not None]
        assert row["rows"] == len(values) and row["scored"] == len(present)
        assert row["mean_value"] == pytest.approx(sum(present) / len(present))

    runs = {r["trace_id"]: r for r in json.loads(_cli(home, "traces", "list", "--format", "json"))}
    key = ("item_id", "run_index", "metric_id", "value", "trace_id")
    assert sorted(tuple(r[k] for k in key) for r in joined) == sorted(
        tuple(s[k] for k in key) for s in scores
    )
    for row in joined:
        run = runs[row["trace_id"]]
        assert row["root_agent"] == run["root_agent"]
        assert row["tool_calls"] == len(run["tool_calls"])
