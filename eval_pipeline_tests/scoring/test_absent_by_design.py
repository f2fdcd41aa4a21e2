"""A reference an item lacks by design makes a metric not applicable; missing data stays unscored.

A regression case triaged from production declares the references the reviewer did not give
(``provenance["absent_by_design"]``). The offline judge judges ``task_completion`` only
against a reference answer: on such a case the metric does not apply, while a golden item that
merely lacks the answer (no declaration) is still unscored, so it counts as missing.
"""

from eval_pipeline.datasets.absent_references import KEY
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline_tests.scoring.builders import call, make_item, make_run

QUESTION = ({"role": "user", "content": "Please cancel order #W1."},)


def _task_completion(**item_fields: object) -> tuple[str, str]:
    scorer = build_scorer("task_completion", judge=OfflineJudge())
    run = make_run([call("cancel_pending_order", {"order_id": "#W1"})], answer="Cancelled #W1.")
    row = scorer.score(run, make_item("case", input_messages=QUESTION, **item_fields))
    return row.status, row.reason


def test_a_case_without_reference_answer_by_design_is_not_applicable() -> None:
    status, reason = _task_completion(provenance={KEY: ["reference_answer"]})
    assert status == ScoreStatus.NOT_APPLICABLE
    assert "no reference answer" in reason


def test_an_undeclared_missing_reference_answer_stays_unscored() -> None:
    status, reason = _task_completion()
    assert status == ScoreStatus.UNSCORED and "expected_outcome" in reason


def test_a_declaration_contradicted_by_the_item_is_ignored() -> None:
    status, _ = _task_completion(
        provenance={KEY: ["reference_answer"]}, reference_answer="Order #W1 is cancelled."
    )
    assert status == ScoreStatus.SCORED
