"""Failure never reads as success: ``run``, ``score`` and ``ingest`` exit non-zero when it failed.

Contract (issue 31): ``run`` exits 1 when any run failed and says how many on stderr, and its
``complete_runs`` counts only runs that did not fail; ``score`` exits 1 when a metric has
``error`` rows, naming the metrics; ``ingest`` of a file holding no span (``{"hello":
"world"}``, an empty file) exits 2 with ``error: no span in FILE`` and stores nothing. A run,
score or ingest with nothing wrong still exits 0.
"""

import json
from pathlib import Path

from click.testing import CliRunner, Result

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.cli.small_suite import small_suite
from eval_pipeline_tests.traces.builders import OTEL

AGENTS = "python:eval_pipeline_tests.cli.exit_agents"


def _invoke(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_run_with_every_run_failed_exits_1_and_counts_no_complete_run(tmp_path: Path) -> None:
    suite = small_suite(tmp_path, "allfail", items=2)
    result = _invoke("run", "--suite", suite, "--build", "b", "--runner", f"{AGENTS}:always_fails")
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    assert summary["failed_runs"] == 4 and summary["complete_runs"] == 0
    assert "4 of 4 runs failed" in result.stderr


def test_run_with_some_runs_failed_exits_1_and_a_clean_run_exits_0(tmp_path: Path) -> None:
    suite = small_suite(tmp_path, "somefail", items=2)
    result = _invoke(
        "run", "--suite", suite, "--build", "b", "--runner", f"{AGENTS}:second_run_fails"
    )
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    assert (summary["failed_runs"], summary["complete_runs"]) == (2, 2)
    assert "2 of 4 runs failed" in result.stderr
    runner = f"{AGENTS}:second_run_fails"
    clean = _invoke(
        "run", "--suite", suite, "--build", "c", "--runner", runner, "--runs-per-item", 1
    )
    assert clean.exit_code == 0, clean.output
    assert clean.stderr == ""


def test_score_with_error_rows_exits_1_naming_the_metrics(tmp_path: Path) -> None:
    suite = small_suite(tmp_path, "scorefail", items=2)
    _invoke("run", "--suite", suite, "--build", "b", "--runner", f"{AGENTS}:second_run_fails")
    result = _invoke("score", "--suite", suite, "--build", "b")
    assert result.exit_code == 1, result.output
    assert "tool_correctness" in result.stderr and "2 error" in result.stderr
    assert "tool_correctness" in result.stdout  # the table is still printed
    _invoke("run", "--suite", suite, "--build", "c", "--runner", f"{AGENTS}:second_run_fails",
            "--runs-per-item", 1)  # fmt: skip
    clean = _invoke("score", "--suite", suite, "--build", "c")
    assert clean.exit_code == 0, clean.output


def test_ingest_of_a_file_with_no_span_exits_2_naming_it(tmp_path: Path) -> None:
    hello = tmp_path / "hello.json"
    hello.write_text('{"hello": "world"}')
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    for path, given in ((hello, ("--format", "otlp")), (empty, ("--format", "otlp")), (empty, ())):
        result = _invoke("ingest", *given, path)
        assert result.exit_code == 2, (path, given, result.output)
        assert f"error: no span in {path}" in result.stderr
        assert "nothing was stored" in result.stderr
    unknown = _invoke("ingest", hello)  # undetected format: already its own error
    assert unknown.exit_code == 2 and f"{hello}: " in unknown.stderr
    assert TraceStore(current_home().store).builds() == []


def test_ingest_names_only_the_empty_file_and_stores_the_good_one(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    good = sorted((OTEL / "synthetic").glob("*.json"))[0]
    result = _invoke("ingest", good, empty, "--output-format", "json")
    assert result.exit_code == 2, result.output
    assert f"no span in {empty}" in result.stderr and f"no span in {good}" not in result.stderr
    assert json.loads(result.stdout)["spans_stored"] > 0
    again = _invoke("ingest", good)  # every span already stored: not "no span"
    assert again.exit_code == 0, again.output
