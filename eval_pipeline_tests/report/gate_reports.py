"""A real gate report to draw and render: two metrics over 40 items in two intents.

``faithfulness`` holds; ``task_completion`` collapses on the ``refund`` intent only, so the
report has a failing metric, a failing slice and passing ones, with evidence traces.
"""

from typing import Any

import numpy as np
import pandas as pd

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import GateConfig, MetricRule, evaluate_gate
from eval_pipeline_tests.gate.builders import frame, score_rows

N_ITEMS = 40
INTENTS = ["refund" if k % 2 else "return" for k in range(N_ITEMS)]


def _rows(metric: str, values: list[float]) -> list[dict[str, object]]:
    rows = score_rows(metric, values)
    for row, intent in zip(rows, INTENTS, strict=True):
        row["intent"] = intent
    return rows


def real_gate_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The candidate's and the baseline's score tables the report is gated on."""
    rng = np.random.default_rng(7)
    base = [float(v) for v in rng.uniform(0.8, 1.0, N_ITEMS)]
    broken = [0.1 if intent == "refund" else v for v, intent in zip(base, INTENTS, strict=True)]
    candidate = frame(_rows("faithfulness", base), _rows("task_completion", broken))
    baseline = frame(_rows("faithfulness", base), _rows("task_completion", base))
    return candidate, baseline


def real_gate_report() -> dict[str, Any]:
    """The JSON of a gate report with 2 metrics x (1 + 2 slices) rows."""
    config = GateConfig(
        metrics=(MetricRule("faithfulness", 0.5, 0.05), MetricRule("task_completion", 0.5, 0.05)),
        slices=("intent",),
        tier=gate_tier("medium"),
        n_resamples=500,
    )
    candidate, baseline = real_gate_frames()
    return evaluate_gate(config, candidate, baseline).to_json()
