"""Stage 2's bookkeeping of what is missing (``every_run_is_scored`` reads it).

Every expected item x run x metric without a ``scored`` row is missing, except a
``not_applicable`` row: the scorer declared that the metric does not apply to that run, which
is an answer, not a hole. The scores summary counts ``not_applicable`` rows on their own.
"""

from pathlib import Path

from eval_pipeline.evaluation.scores_stage import ScoresSummary
from eval_pipeline.evaluation.stages import missing_scores, open_stage
from eval_pipeline.home import current_home
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.store import ScoreStore

SUITE = """\
suite: weather-handoffs
risk_tier: low
datasets:
  - name: golden/otel-weather-v1
runs_per_item: 3
metrics:
  - {id: handoff_quality, threshold: 0.5, max_regression: 0.1}
"""
ITEM = "5403f18aa67f2f7e98b39921e959580f"  # the one item of the shipped golden/otel-weather


def test_not_applicable_rows_are_not_missing(tmp_path: Path) -> None:
    suite = tmp_path / "weather-handoffs.yaml"
    suite.write_text(SUITE)
    home = current_home().ensure()
    rows = [
        Score("handoff_quality", 1.0, ScoreStatus.SCORED, "handoff_quality", 2),
        Score(
            "handoff_quality",
            None,
            ScoreStatus.NOT_APPLICABLE,
            "handoff_quality",
            2,
            reason="no hand-off expected and none made",
        ),
        Score("handoff_quality", None, ScoreStatus.UNSCORED, "handoff_quality", 2, reason="x"),
    ]
    ScoreStore(home.store).write(
        "b1", [r.with_context(build="b1", item_id=ITEM, run_index=i) for i, r in enumerate(rows)]
    )
    missing = missing_scores(open_stage(home, "b1", suite))
    assert [(m["run_index"], m["status"]) for m in missing] == [(2, "unscored")]


def test_the_scores_summary_counts_not_applicable_rows() -> None:
    counts = {ScoreStatus.SCORED: 2, ScoreStatus.NOT_APPLICABLE: 1}
    summary = ScoresSummary("b1", 3, counts, None, None, {})
    assert summary.metadata()["not_applicable"] == 1
