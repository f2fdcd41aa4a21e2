"""Batches: the offline judge and the judge cache answer many requests as they answer one.

A text's embedding does not depend on the batch it was computed in (and texts alike up to the
model's 256 tokens are one input), so the offline judge embeds the texts of many requests
together: ``judge_many`` gives exactly the verdicts ``judge`` gives one by one (a request it
cannot judge is answered by its exception, in place), in a fraction of the model calls. The
judge cache looks a batch up in one query and stores its new verdicts in one transaction, with
the hits, misses and inner calls that one-by-one calls would count.
"""

import numpy as np
from sqlalchemy import event

from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.errors import JudgeCannotJudge
from eval_pipeline.judges.fanout import judge_each
from eval_pipeline.judges.offline.embedder import MiniLMEmbedder
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.protocol import JudgeRequest, JudgeVerdict
from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline.statedb import engine_for

ORDER = '{"order_id": "W1", "status": "delivered", "total": 20.5, "items": ["lamp", "desk"]}'
LONG = "get_order_details returned: " + ORDER * 40  # past the model's 256 tokens


def _requests() -> list[JudgeRequest]:
    faithfulness = load_rubric("faithfulness")
    completion = load_rubric("task_completion")
    return [
        faithfulness.request({"answer": "Order W1 was delivered.", "contexts": [ORDER]}),
        faithfulness.request({"answer": "Order W1 is pending. It cost $25.", "contexts": [LONG]}),
        load_rubric("answer_relevancy").request(
            {"question": "Where is my order W1?", "answer": "Order W1 was delivered on Monday."}
        ),
        completion.request(
            {
                "question": "Return the lamp of order W1",
                "answer": "I returned the lamp of order W1.",
                "expected_outcome": "The lamp of order W1 is returned.",
                "tool_calls": ['return_items({"order_id": "W1"}) -> ok'],
            }
        ),
        completion.request({"question": "q", "answer": "a"}),  # no expected outcome
        load_rubric("plan_quality").request({"question": "refund", "plan": "1. refund"}),
        faithfulness.request({"answer": "Order W1 was delivered.", "contexts": [ORDER]}),
    ]


def _one_by_one(judge: OfflineJudge | CachedJudge) -> list[JudgeVerdict | Exception]:
    answers: list[JudgeVerdict | Exception] = []
    for request in _requests():
        try:
            answers.append(judge.judge(request))
        except JudgeCannotJudge as exc:
            answers.append(exc)
    return answers


def _same(left: list[JudgeVerdict | Exception], right: list[JudgeVerdict | Exception]) -> None:
    assert len(left) == len(right)
    for a, b in zip(left, right, strict=True):
        if isinstance(a, Exception):
            assert type(a) is type(b) and str(a) == str(b)
        else:
            assert a == b


def test_a_vector_does_not_depend_on_its_batch() -> None:
    texts = ["Refund approved.", LONG, "The lamp of order W1 is returned.", ORDER, "ok"]
    alone = MiniLMEmbedder()
    together = MiniLMEmbedder()
    batch = together.embed(texts[::-1])[::-1]
    for text, vector in zip(texts, batch, strict=True):
        assert np.array_equal(alone.embed([text])[0], vector)
    assert together.model_calls == 2 < alone.model_calls  # short texts together, the long alone


def test_texts_alike_up_to_the_model_limit_run_once() -> None:
    embedder = MiniLMEmbedder()
    vectors = embedder.embed([LONG + " first", LONG + " second", "short"])
    assert np.array_equal(vectors[0], vectors[1]) and embedder.computed == 2


def test_judge_many_gives_the_verdicts_of_judge_in_fewer_model_calls() -> None:
    single, batched = (
        OfflineJudge(embedder=MiniLMEmbedder()),
        OfflineJudge(embedder=MiniLMEmbedder()),
    )
    expected = _one_by_one(single)
    answers = batched.judge_many(_requests())
    _same(answers, expected)
    assert isinstance(answers[4], JudgeCannotJudge) and isinstance(answers[5], JudgeCannotJudge)
    assert batched.embedder.model_calls == 2 < single.embedder.model_calls
    assert batched.embedder.computed == single.embedder.computed  # each text embedded once


def test_cache_answers_a_batch_with_one_lookup_and_one_insert(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path}/batch.db"
    statements: list[str] = []

    def record(_conn, _cursor, statement: str, *_rest) -> None:  # type: ignore[no-untyped-def]
        if not statement.startswith("PRAGMA"):  # table checks when a judge opens the DB
            statements.append(statement.split()[0])

    event.listen(engine_for(url), "before_cursor_execute", record)
    reference = CachedJudge(OfflineJudge(), f"sqlite:///{tmp_path}/one-by-one.db")
    expected = _one_by_one(reference)

    first = CachedJudge(OfflineJudge(), url)
    _same(first.judge_many(_requests()), expected)
    assert statements == ["SELECT", "INSERT"]
    assert first.stats == reference.stats  # the repeat is a hit, cannot-judge an error
    assert first.stats.as_dict() == {"hits": 1, "misses": 6, "calls": 6, "errors": 2}

    statements.clear()
    second = CachedJudge(OfflineJudge(), url)
    _same(judge_each(second, _requests()), expected)
    assert statements == ["SELECT"]  # nothing new to store: the failures are not cached
    assert second.stats.as_dict() == {"hits": 5, "misses": 2, "calls": 2, "errors": 2}
