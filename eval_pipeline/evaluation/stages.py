"""The evaluation stages, one import away for the Dagster shell, the CLI and the defects path."""

from eval_pipeline.evaluation.gate_stage import GateOutcome, decide_gate
from eval_pipeline.evaluation.operations_stage import operational_summary
from eval_pipeline.evaluation.runs_stage import (
    RunsSummary,
    collect_runs,
    incomplete_runs,
    stored_runs,
)
from eval_pipeline.evaluation.scores_stage import ScoresSummary, missing_scores, score_runs
from eval_pipeline.evaluation.slices_stage import slice_summary
from eval_pipeline.evaluation.stage import Scope, Stage, load_stage, open_stage

__all__ = [
    "GateOutcome",
    "RunsSummary",
    "Scope",
    "ScoresSummary",
    "Stage",
    "collect_runs",
    "decide_gate",
    "incomplete_runs",
    "load_stage",
    "missing_scores",
    "open_stage",
    "operational_summary",
    "score_runs",
    "slice_summary",
    "stored_runs",
]
