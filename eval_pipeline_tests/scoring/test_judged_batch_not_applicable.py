"""A judged metric says ``not_applicable`` the same way run by run and in a batch.

Contract: ``score`` scores judged metrics in one batch (``score_many``); a run the metric does
not apply to (``faithfulness`` on a run with no evidence whose item expects none) is
``not_applicable`` there too, never ``unscored`` (which the gate counts as missing).
"""

from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline_tests.scoring.builders import make_item, make_run


def test_faithfulness_is_not_applicable_in_a_batch_as_alone() -> None:
    scorer = build_scorer("faithfulness", judge=OfflineJudge())
    run, item = make_run([], answer="Hello, our store opens at nine."), make_item("i")
    alone = scorer.verdict(run, item)  # type: ignore[attr-defined]
    (batched,) = scorer.score_many([(run, item)])  # type: ignore[attr-defined]
    assert alone.status == batched.status == ScoreStatus.NOT_APPLICABLE
    assert batched.reason == alone.reason
