"""``python -m benchmarks judge``: every tool on one fake endpoint, figures counted server-side.

A small run (4 cases, 50 ms per request, eval-pipeline and RAGAS; DeepEval's own start-up is
the slow part and is measured by the command itself): each tool scores every case, its calls
per case and most-in-flight come from the server, and the ratio against RAGAS is reported.
Timings are reported, never asserted.
"""

import json

from click.testing import CliRunner

from benchmarks.cli import bench


def test_bench_judge_reports_each_tools_cases_per_second_and_calls() -> None:
    result = CliRunner().invoke(
        bench,
        ["judge", "--cases", "4", "--latency", "0.05", "--concurrency", "4",
         "--tool", "eval-pipeline", "--tool", "ragas", "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    ours, ragas = report["tools"]["eval-pipeline"], report["tools"]["ragas"]
    assert ours["scored"] == ragas["scored"] == 4
    assert ours["calls_per_case"] == 1.0 and ragas["calls_per_case"] == 2.0
    assert 1 < ours["most_in_flight"] <= 4
    assert ours["prompts_answered_twice"] == 0
    assert report["eval_pipeline_vs_ragas"] > 0 and "eval_pipeline_vs_deepeval" not in report
