"""The offline judge's false passes (issue 17), through the judged scorers as a suite runs them.

``task_completion`` fails an answer that does not address the task ("The weather is sunny
today.") even when the tool calls did the work, and an answer about another order id than the
expected outcome's; ``faithfulness`` fails a negated claim ("was not processed") against a tool
result saying it was. The right answers still pass, including a correct negated paraphrase
("has not shipped yet" for a pending order).
"""

import pytest

from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.scoring.builders import call, make_item, make_run

JUDGE = OfflineJudge()
QUESTION = "Please cancel order W1."
CANCEL_ITEM = make_item(
    "cancel-w1",
    input_messages=({"role": "user", "content": QUESTION},),
    reference_answer="Order W1 is cancelled.",
)


def _task_completion(answer: str, order_id: str) -> tuple[float, bool]:
    run = make_run(
        [call("cancel_order", {"order_id": order_id}, result={"status": "cancelled"})],
        answer=answer,
        user_input=QUESTION,
    )
    score = build_scorer("task_completion", judge=JUDGE).score(run, CANCEL_ITEM)
    assert score.status == "scored", score.reason
    assert score.value is not None
    return score.value, bool(score.evidence["passed"])


def _faithfulness(answer: str, result: object) -> tuple[float, bool]:
    run = make_run(
        [call("get_order", {"order_id": "W1"}, result=result)],
        answer=answer,
        user_input="What happened to my order W1?",
    )
    score = build_scorer("faithfulness", judge=JUDGE).score(run, make_item("w1"))
    assert score.status == "scored", score.reason
    assert score.value is not None
    return score.value, bool(score.evidence["passed"])


def test_an_off_topic_answer_does_not_complete_the_task() -> None:
    value, passed = _task_completion("The weather is sunny today.", "W1")
    assert not passed and value < 0.5


def test_an_answer_about_another_order_does_not_complete_the_task() -> None:
    value, passed = _task_completion("Order W2 has been cancelled.", "W2")
    assert not passed and value < 0.5


def test_the_right_answer_completes_the_task() -> None:
    value, passed = _task_completion("I have cancelled order W1 for you.", "W1")
    assert passed and value == 1.0


def test_a_negated_claim_against_a_result_saying_it_happened_is_not_faithful() -> None:
    result = {"order_id": "W1", "status": "processed"}
    value, passed = _faithfulness("The refund for order W1 was not processed.", result)
    assert not passed and value < 0.5


@pytest.mark.parametrize(
    "answer, result",
    [
        ("The refund for order W1 was processed.", {"order_id": "W1", "status": "processed"}),
        ("Order W1 has not shipped yet.", {"order_id": "W1", "status": "pending"}),
    ],
)
def test_faithful_answers_still_pass(answer: str, result: object) -> None:
    value, passed = _faithfulness(answer, result)
    assert passed and value == 1.0


def test_an_unsupported_clause_is_not_carried_by_a_supported_one() -> None:
    weather = {"city": "Paris", "temperature_c": 18, "conditions": "cloudy"}
    scorer = build_scorer("faithfulness", judge=JUDGE)
    for answer, faithful in [
        ("It is 18°C and cloudy in Paris.", True),
        ("It is 18°C and cloudy in Paris, with heavy rain expected this evening.", False),
    ]:
        run = make_run([call("get_weather", {"city": "Paris"}, result=weather)], answer=answer)
        score = scorer.score(run, CANCEL_ITEM)
        assert score.evidence["passed"] is faithful, (answer, score.reason)


def test_a_name_the_evidence_never_mentions_is_unsupported() -> None:
    result = {"order_id": "W1", "status": "shipped"}
    assert _faithfulness("Order W1 was shipped.", result) == (1.0, True)
    assert _faithfulness("Order W1 was shipped by Alice.", result) == (0.0, False)
