"""The judge cache and the judge factory.

The judge cache: a second run of the same requests makes zero calls to the inner judge (all
hits, same verdicts), a changed fingerprint or input misses, and failures are not cached. The
factory picks the offline judge without an endpoint and the HTTP judge with one, always cached
on the current home's state database.
"""

import pytest

from eval_pipeline.home import current_home
from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.factory import JudgeConfigError, judge_from_config
from eval_pipeline.judges.http_judge import HttpJudge, RetryPolicy
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.protocol import JudgeError
from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline_tests.judges.chat_server import chat_server


def _suite_requests():
    rubric = load_rubric("faithfulness")
    contexts = ['{"order_id": "W1", "status": "delivered", "total": 20.5}']
    answers = ["Order W1 was delivered.", "Order W1 is pending.", "Order W1 cost $25."]
    return [rubric.request({"answer": a, "contexts": contexts}) for a in answers]


def test_second_run_makes_zero_judge_calls() -> None:
    url = current_home().state_url
    requests = _suite_requests()
    first = CachedJudge(OfflineJudge(), url)
    verdicts = [first.judge(r) for r in requests]
    assert (first.stats.calls, first.stats.hits) == (3, 0)

    second = CachedJudge(OfflineJudge(), url)  # a new process would see the same table
    again = [second.judge(r) for r in requests]
    assert second.stats.calls == 0 and second.stats.hits == 3
    assert again == verdicts


def test_changed_fingerprint_or_input_misses() -> None:
    url = current_home().state_url
    request = _suite_requests()[0]
    CachedJudge(OfflineJudge(rubric_version="1"), url).judge(request)
    other_version = CachedJudge(OfflineJudge(rubric_version="2"), url)
    other_version.judge(request)
    assert other_version.stats.misses == 1
    changed = load_rubric("faithfulness").request(
        {"answer": "Order W1 was delivered today.", "contexts": request.fields["contexts"]}
    )
    same_judge = CachedJudge(OfflineJudge(rubric_version="1"), url)
    same_judge.judge(changed)
    assert same_judge.stats.misses == 1


def test_failures_are_not_cached() -> None:
    request = _suite_requests()[0]
    valid = {"score": 1.0, "passed": True, "reason": "ok", "details": {"claims": []}}
    with chat_server([("status", 500), ("ok", valid)]) as server:
        http = HttpJudge("m", base_url=server.url, retry=RetryPolicy(1, 0.01, 0.01, 0.0))
        cached = CachedJudge(http, current_home().state_url)
        with pytest.raises(JudgeError):
            cached.judge(request)
        assert cached.judge(request).passed
    assert cached.stats.as_dict() == {"hits": 0, "misses": 2, "calls": 2, "errors": 1}


def test_factory_offline_model_gives_cached_offline_judge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("EVAL_PIPELINE_JUDGE_BASE_URL", raising=False)
    judge = judge_from_config("offline-minilm")
    assert isinstance(judge, CachedJudge) and isinstance(judge.inner, OfflineJudge)
    assert judge.backend == "offline-minilm"


def test_named_judge_without_endpoint_is_an_error_not_the_offline_judge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("EVAL_PIPELINE_JUDGE_BASE_URL", raising=False)
    with pytest.raises(JudgeConfigError, match=r"gpt-4o-mini.*judge\.base_url"):
        judge_from_config("gpt-4o-mini")


def test_factory_with_endpoint_gives_http_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_PIPELINE_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    judge = judge_from_config("qwen", "1")
    assert isinstance(judge.inner, HttpJudge)
    assert judge.fingerprint.model == "qwen" and judge.fingerprint.rubric_version == "1"
    assert judge_from_config("offline-minilm").backend == "offline-minilm"


@pytest.mark.postgres
def test_cache_on_postgresql() -> None:
    import uuid

    from sqlalchemy import create_engine, text

    name = f"judge_cache_{uuid.uuid4().hex[:10]}"
    admin = create_engine(
        "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres", isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = f"postgresql+psycopg2://postgres@127.0.0.1:5432/{name}"
    try:
        requests = _suite_requests()
        first = CachedJudge(OfflineJudge(), url)
        verdicts = [first.judge(r) for r in requests]
        second = CachedJudge(OfflineJudge(), url)
        assert [second.judge(r) for r in requests] == verdicts
        assert (first.stats.calls, second.stats.calls, second.stats.hits) == (3, 0, 3)
    finally:
        from eval_pipeline.statedb import engine_for

        engine_for(url).dispose()
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
