"""``eval-pipeline bench score`` runs every deterministic scorer on real-shaped runs.

It reports throughput with a ratio against an in-run reference, and the peers (RAGAS
``ToolCallAccuracy``, DeepEval ``ToolCorrectnessMetric``) on the same runs in the same process,
with the suite's runs/s over RAGAS's one metric (timings are not asserted).
"""

import json

from click.testing import CliRunner

from benchmarks.cli import bench
from benchmarks.score import _cases
from eval_pipeline.scoring.action_claims import find_claims
from eval_pipeline.scoring.registry import select_metric_ids


def test_bench_score_reports_rows_for_every_metric_and_the_peers() -> None:
    result = CliRunner().invoke(
        bench, ["score", "--runs", "60", "--peer-runs", "20", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["score_rows"] == 60 * len(select_metric_ids(needs_judge=False))
    assert report["by_status"].get("error", 0) == 0
    assert report["runs_per_s"] > 0 and report["runs_per_cpu_s"] > 0 and "ratio" in report
    assert set(report["peers"]) == {"ragas.ToolCallAccuracy", "deepeval.ToolCorrectnessMetric"}
    for figures in report["peers"].values():
        assert figures["runs"] == 20 and figures["runs_per_s"] > 0
    ragas = report["peers"]["ragas.ToolCallAccuracy"]["runs_per_s"]
    assert abs(report["suite_vs_ragas_single_metric"] - report["runs_per_s"] / ragas) < 0.01


def test_bench_runs_answer_with_texts_of_their_own() -> None:
    """No two benchmark runs share a final answer: a per-text memo cannot flatter the figure."""
    runs = [run for run, _ in _cases(30, distinct_answers=True)]
    answers = [run.final_answer for run in runs]
    assert len(set(answers)) == len(answers)
    plain = [run for run, _ in _cases(30)]
    # The reference appended changes no claim the scorers see.
    for with_ref, without in zip(runs, plain, strict=True):
        assert find_claims(with_ref.final_answer or "") == find_claims(without.final_answer or "")
