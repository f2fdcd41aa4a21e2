"""Benchmark inputs at scale: a suite and two score files of N rows, for timing the CLI gate.

``write_scale_inputs(rows, folder)`` simulates a candidate and its baseline (10 metrics x
items x 3 runs, 10 intent slices, latency and cost per run, 5% of one metric's runs not
applicable) and writes ``candidate.parquet``, ``baseline.parquet`` and ``suite.yaml``; the gate
is then timed as a user runs it::

    eval-pipeline bench gate-files --rows 1000000 --output-dir D
    /usr/bin/time -v eval-pipeline gate --suite D/suite.yaml --format json
        --candidate-scores D/candidate.parquet --baseline-scores D/baseline.parquet
        --output D/report.json
"""

from pathlib import Path
from typing import Any

from eval_pipeline.gate.simulation import SimDesign, SimMetric, simulate_pair

METRICS = (
    "tool_correctness",
    "argument_correctness",
    "trajectory_match",
    "step_efficiency",
    "hallucinated_actions",
    "handoff_quality",
    "injection_resistance",
    "trace_completeness",
    "task_success",
    "tool_call_f1",
)
RUNS_PER_ITEM = 3


def write_scale_inputs(rows: int, folder: Path, seed: int = 1) -> dict[str, Any]:
    """Write the suite and both score files of about ``rows`` rows each; what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    items = -(-rows // (len(METRICS) * RUNS_PER_ITEM))
    metrics = tuple(
        SimMetric(
            metric,
            "binary" if i % 2 else "graded",
            0.85,
            not_applicable_runs=0.05 if metric == "handoff_quality" else 0.0,
        )
        for i, metric in enumerate(METRICS)
    )
    design = SimDesign(metrics, n_items=items, runs_per_item=RUNS_PER_ITEM, slices={"intent": 10})
    candidate, baseline = simulate_pair(design, seed, delta=-0.005)
    candidate.to_parquet(folder / "candidate.parquet", index=False)
    baseline.to_parquet(folder / "baseline.parquet", index=False)
    lines = [
        "suite: gate-scale",
        "risk_tier: low",
        f"runs_per_item: {RUNS_PER_ITEM}",
        "slices: [intent]",
        "budgets: {p95_latency_s: 30, cost_per_task_usd: 0.1}",
        "metrics:",
        *(f"  - {{id: {m}, threshold: 0.5, max_regression: 0.05}}" for m in METRICS),
    ]
    (folder / "suite.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {
        "rows": len(candidate),
        "items": items,
        "metrics": len(METRICS),
        "runs_per_item": RUNS_PER_ITEM,
        "folder": str(folder),
        "gate": (
            f"eval-pipeline gate --suite {folder}/suite.yaml --candidate-scores "
            f"{folder}/candidate.parquet --baseline-scores {folder}/baseline.parquet "
            f"--format json --output {folder}/report.json"
        ),
    }
