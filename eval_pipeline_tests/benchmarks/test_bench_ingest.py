"""``python -m benchmarks ingest``: the pipeline against a plain parse-to-Parquet reference."""

import json

from click.testing import CliRunner

from benchmarks.cli import bench


def _invoke(*args):
    return CliRunner().invoke(bench, [str(a) for a in args], catch_exceptions=False)


def test_bench_ingest_reports_a_ratio():
    result = _invoke("ingest", "--spans", "200", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["spans"] == 200 and report["ratio"] > 0
    assert set(report["pipeline_us_per_span_by_stage"]) == {
        "decode",
        "normalise_redact",
        "scrub_other_fields",
        "completeness",
        "store",
    }
    assert report["goal_ratio"] == 0.5
    assert "(default policy)" in report["pipeline"]


def test_bench_ingest_measures_the_json_encoding_against_a_json_reference():
    result = _invoke("ingest", "--spans", "200", "--encoding", "json", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["encoding"] == "json" and report["spans"] == 200
    assert report["reference"].startswith("json.loads")


def test_bench_ingest_takes_the_keep_tools_policy():
    result = _invoke(
        "ingest", "--spans", "200", "--redaction-policy", "keep-tools", "--format", "json"
    )
    assert result.exit_code == 0, result.output
    assert "(keep-tools policy)" in json.loads(result.output)["pipeline"]
