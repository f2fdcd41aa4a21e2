"""The offline judge reads redaction tokens as opaque values, as it reads the values they hide.

Contract: stored traces hold personal data as keyed tokens (``[EMAIL:5b71f2aec3]``, see
``traces.redact``). The token's kind is metadata, not a word of the text: a redacted question,
answer or context gets the verdict its raw form gets when the hidden value's words do not
matter, so redacting a run's spans does not make a claim about "an email" supported.
"""

from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline.traces.redact.tokens import tokenised

JUDGE = OfflineJudge()
QUESTION = "You are mia_garcia_4516 (mia.garcia2723@example.com). Return everything ordered."
ANSWER = "You will receive an email regarding how to return the items."
CONTEXT = "Items may be returned within 90 days of purchase for store credit."


def _faithfulness(question: str, contexts: list[str]) -> tuple[float | None, bool | None]:
    fields = {"answer": ANSWER, "contexts": contexts, "question": question}
    verdict = JUDGE.judge(load_rubric("faithfulness").request(fields))
    return verdict.score, verdict.passed


def test_a_redacted_question_supports_no_more_than_the_raw_one() -> None:
    redacted = tokenised(QUESTION)
    assert "[EMAIL:" in redacted
    raw = _faithfulness(QUESTION, [CONTEXT])
    assert raw == (0.0, False)  # nothing in the evidence says an email will be sent
    assert _faithfulness(redacted, [CONTEXT]) == raw


def test_a_redacted_context_field_states_no_more_than_the_raw_one() -> None:
    record = '{"email": "mia.garcia2723@example.com", "zip": "46229"}'
    raw = _faithfulness("Return everything.", [CONTEXT, record])
    assert _faithfulness("Return everything.", [CONTEXT, tokenised(record)]) == raw


def test_the_fingerprint_names_the_method_that_reads_tokens_as_values() -> None:
    method, version = str(JUDGE.fingerprint.parameters["method"]).split("@")
    assert method == "claims" and int(version) >= 2
