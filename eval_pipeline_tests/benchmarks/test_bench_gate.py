"""``eval-pipeline bench gate`` and ``bench gate-files`` (timings are reported, never asserted).

``bench gate`` gates the issue-8 workload against the reference's bootstrap measured in the
same run and reports the ratio; ``bench gate-files`` writes a suite and two score files of
the asked size, which ``gate`` then reads like any user's files.
"""

import json
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from benchmarks.cli import bench
from eval_pipeline.cli import cli


def test_bench_gate_reports_a_ratio_against_the_reference() -> None:
    result = CliRunner().invoke(
        bench, ["gate", "--resamples", "200", "--reference-resamples", "100",
              "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["speedup"] > 0 and report["reference_extrapolated"] is True
    assert report["gate_verdict"] in ("pass", "fail", "inconclusive")


def test_gate_files_are_what_the_gate_reads(tmp_path: Path) -> None:
    out = CliRunner().invoke(
        bench, ["gate-files", "--rows", "3000", "--output-dir", str(tmp_path),
              "--format", "json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    written = json.loads(out.output)
    assert written["rows"] == len(pd.read_parquet(tmp_path / "candidate.parquet")) >= 3000
    args = [*written["gate"].split()[1:], "--resamples", "200"]
    gated = CliRunner().invoke(cli, args)
    assert gated.exit_code in (0, 1), gated.output
    report = json.loads((tmp_path / "report.json").read_text())
    assert len(report["metrics"]) == 10 and report["metrics"][5]["not_applicable"] > 0
