"""The offline MiniLM judge.

The offline judge runs the packaged MiniLM ONNX model with the shipped tokenizer (no download):
its embeddings rank paraphrases above unrelated text; faithfulness flags wrong numbers, opposite
statuses and fabricated extras as contradicted and passes answers restating tool results; it
agrees with the hand-written agent faithfulness labels better than chance; relevancy separates
on- from off-topic answers; it refuses tasks it cannot judge with ``JudgeCannotJudge``.
"""

import json

import numpy as np
import pandas as pd
import pytest

from eval_pipeline.judges.calibration import agreement
from eval_pipeline.judges.errors import JudgeCannotJudge
from eval_pipeline.judges.labelled_run import calibrate_judge
from eval_pipeline.judges.offline.claims import evidence_units, split_claims
from eval_pipeline.judges.offline.embedder import shared_embedder
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.protocol import JudgeError
from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline.package_data import package_path

AGENT_SET = package_path("eval_pipeline.judges", "calibration_sets", "agent_faithfulness.jsonl")

JUDGE = OfflineJudge()


def _faithfulness(answer: str, contexts: list[str], question: str = ""):
    fields = {"answer": answer, "contexts": contexts}
    if question:
        fields["question"] = question
    return JUDGE.judge(load_rubric("faithfulness").request(fields))


def test_embeddings_are_unit_vectors_ranking_paraphrases_first() -> None:
    vectors = shared_embedder().embed(
        [
            "The refund was approved.",
            "Your refund has been approved.",
            "The weather in Paris is sunny today.",
        ]
    )
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    paraphrase, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert paraphrase > 0.8 and unrelated < 0.2


def test_wrong_amount_is_contradicted() -> None:
    verdict = _faithfulness(
        "A refund of $45.00 has been processed.",
        ['{"refund": {"amount": 54.0, "status": "processed"}}'],
    )
    assert not verdict.passed and verdict.score == 0.0
    assert verdict.details["claims"][0]["verdict"] == "contradicted"
    assert "45" in verdict.reason


def test_opposite_status_is_contradicted() -> None:
    verdict = _faithfulness(
        "Your order #W7742 has been shipped.", ['{"order_id": "#W7742", "status": "pending"}']
    )
    assert verdict.details["claims"][0]["verdict"] == "contradicted"
    assert "pending" in verdict.reason


def test_restating_the_tool_result_passes_and_fabricated_extra_fails() -> None:
    context = ['{"reservation_id": "XEHM4B", "status": "cancelled", "refund_amount": 412.5}']
    good = _faithfulness("Reservation XEHM4B is cancelled and $412.50 will be refunded.", context)
    assert good.passed and good.score == 1.0
    bad = _faithfulness(
        "Reservation XEHM4B is cancelled. You also received a $50 voucher (code VX-991).", context
    )
    assert not bad.passed and 0.0 < bad.score < 1.0


def test_agreement_with_hand_written_agent_labels_beats_chance() -> None:
    rows = [json.loads(line) for line in AGENT_SET.open()]
    human = np.array([row["label"] == "pass" for row in rows])
    judged = np.array(
        [_faithfulness(row["answer"], row["contexts"], row["question"]).passed for row in rows]
    )
    report = agreement(human, judged, n_resamples=200)
    assert report.balanced_accuracy is not None and report.balanced_accuracy > 0.6
    # the same figure through the labelled-run path the CLI and the Dagster asset use
    labels = pd.read_json(AGENT_SET, lines=True)
    same, run = calibrate_judge(JUDGE, labels, "faithfulness", n_resamples=200)
    assert same.balanced_accuracy == report.balanced_accuracy and not run.errors


def test_relevancy_separates_on_and_off_topic() -> None:
    rubric = load_rubric("answer_relevancy")
    question = "How do I reset my password?"
    on = JUDGE.judge(
        rubric.request(
            {
                "question": question,
                "answer": "Click 'Forgot password' on the login page and follow the emailed link.",
            }
        )
    )
    off = JUDGE.judge(
        rubric.request(
            {"question": question, "answer": "Our store opens at 9am and sells garden furniture."}
        )
    )
    assert on.passed and not off.passed and on.score > off.score


def test_tasks_it_cannot_judge_raise_cannot_judge() -> None:
    request = load_rubric("plan_quality").request({"question": "refund order", "plan": "1. refund"})
    with pytest.raises(JudgeCannotJudge, match="cannot judge 'plan_quality'") as caught:
        JUDGE.judge(request)
    assert isinstance(caught.value, JudgeError)  # unaware callers still record a missing score
    no_outcome = load_rubric("task_completion").request({"question": "q", "answer": "a"})
    with pytest.raises(JudgeCannotJudge, match="expected_outcome"):
        JUDGE.judge(no_outcome)


def test_task_completion_against_expected_outcome() -> None:
    rubric = load_rubric("task_completion")
    fields = {
        "question": "Cancel reservation XEHM4B",
        "expected_outcome": "Reservation XEHM4B is cancelled.",
        "tool_calls": [
            'cancel_reservation({"reservation_id": "XEHM4B"}) -> {"status": "cancelled"}'
        ],
    }
    done = JUDGE.judge(
        rubric.request({**fields, "answer": "Your reservation XEHM4B is cancelled."})
    )
    failed = JUDGE.judge(
        rubric.request(
            {
                **fields,
                "tool_calls": [
                    'get_reservation({"reservation_id": "XEHM4B"}) -> {"status": "active"}'
                ],
                "answer": "Reservation XEHM4B is still active; I could not cancel it.",
            }
        )
    )
    assert done.passed and not failed.passed


def test_fingerprint_records_backend_model_and_thresholds() -> None:
    fingerprint = JUDGE.fingerprint
    assert fingerprint.backend == JUDGE.backend == "offline-minilm"
    assert fingerprint.model == "all-MiniLM-L6-v2-onnx-int8"
    assert fingerprint.parameters["support_similarity"] == 0.5


def test_claims_and_evidence_units() -> None:
    claims = split_claims(
        "Sure! Your order shipped on May 3. Is there anything else I can help with?"
    )
    assert claims == ["Your order shipped on May 3."]
    units = evidence_units("{'order': {'id': 'W1', 'status': 'pending'}}")
    assert "order status: pending" in units and any("id W1" in u for u in units)
