"""pass^k counts a pass by the metric's direction: 0 for a lower-is-better metric.

Contract (``scoring.aggregate.summarise``): for a binary metric whose scorer declares lower
values better (``session.repeated_user_requests``: 0 = the user never had to repeat), a run
passes with value 0, so a build that never repeats has pass^k = 1.
"""

from eval_pipeline.scoring.aggregate import summarise
from eval_pipeline.scoring.score import Score, ScoreStatus

REPEATS = "session.repeated_user_requests"


def _row(metric: str, item: str, value: float) -> Score:
    return Score(metric, value, ScoreStatus.SCORED, metric, 1, item_id=item, run_index=0)


def test_a_lower_is_better_metric_passes_at_zero() -> None:
    rows = [_row(REPEATS, "a", 0.0), _row(REPEATS, "b", 0.0), _row(REPEATS, "c", 1.0)]
    rows += [_row("session.goal_completed", "a", 1.0), _row("session.goal_completed", "b", 0.0)]
    summary = summarise(rows)
    assert summary[REPEATS].pass_k == {1: 2 / 3}
    assert summary["session.goal_completed"].pass_k == {1: 0.5}
