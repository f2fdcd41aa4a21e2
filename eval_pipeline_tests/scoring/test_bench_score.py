"""``eval-pipeline bench score`` runs every deterministic scorer on real-shaped runs.

It reports throughput with a ratio against an in-run reference (timings are not asserted).
"""

import json

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.scoring.registry import select_metric_ids


def test_bench_score_reports_rows_for_every_metric() -> None:
    result = CliRunner().invoke(cli, ["bench", "score", "--runs", "60", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["score_rows"] == 60 * len(select_metric_ids(needs_judge=False))
    assert report["by_status"].get("error", 0) == 0
    assert report["runs_per_s"] > 0 and "ratio" in report
