"""The OpenAI-compatible HTTP judge against a loopback chat-completions server.

The OpenAI-compatible HTTP judge, through the real ``openai`` client against a real loopback
server speaking chat-completions: a valid verdict is returned; malformed JSON, a reply past the
timeout and 5xx errors are retried with seeded exponential backoff; when attempts run out (or on
a non-retryable 4xx) the judge raises ``JudgeError``; a server without ``json_schema`` support
gets ``json_object`` and the reply is still validated.
"""

import pytest

from eval_pipeline.judges.http_judge import HttpJudge, RetryPolicy
from eval_pipeline.judges.limits import JudgeLimits
from eval_pipeline.judges.protocol import JudgeError
from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline_tests.judges.chat_server import chat_server

VALID = {
    "score": 0.5,
    "passed": False,
    "reason": "one claim is unsupported",
    "details": {
        "claims": [
            {"claim": "refund approved", "verdict": "supported", "evidence": "status approved"},
            {"claim": "arrives Monday", "verdict": "unsupported", "evidence": ""},
        ]
    },
}
FAST = RetryPolicy(max_attempts=3, base_delay=0.02, max_delay=0.5, jitter=0.25)


def _request():
    return load_rubric("faithfulness").request(
        {"answer": "Your refund was approved and arrives Monday.", "contexts": ["status: approved"]}
    )


def _judge(url: str, **options) -> HttpJudge:
    options.setdefault("retry", FAST)
    options.setdefault("timeout", 2.0)
    return HttpJudge("judge-model", base_url=url, api_key="test-key", **options)


def test_valid_verdict_is_returned_and_request_carries_schema() -> None:
    with chat_server([("ok", VALID)]) as server:
        judge = _judge(server.url, temperature=0.0)
        verdict = judge.judge(_request())
    assert (verdict.score, verdict.passed) == (0.5, False)
    assert verdict.details["claims"][1]["verdict"] == "unsupported"
    body = server.bodies[0]
    assert body["model"] == "judge-model"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == _request().schema
    assert _request().prompt in body["messages"][-1]["content"]
    assert judge.stats.retries == 0


def test_malformed_then_5xx_then_valid_is_retried_with_growing_backoff() -> None:
    script = [("text", "the answer is faithful"), ("status", 503), ("ok", VALID)]
    with chat_server(script) as server:
        judge = _judge(server.url)
        verdict = judge.judge(_request())
    assert verdict.score == 0.5
    assert len(server.bodies) == 3
    delays = judge.stats.delays
    assert judge.stats.retries == 2 and len(delays) == 2
    for retry, delay in enumerate(delays):
        raw = FAST.base_delay * 2**retry
        assert raw <= delay <= raw * (1 + FAST.jitter)
    assert delays[1] > delays[0]


def test_backoff_jitter_is_seeded() -> None:
    runs = []
    for _ in range(2):
        with chat_server([("status", 500), ("status", 502), ("ok", VALID)]) as server:
            judge = _judge(server.url, seed=7)
            judge.judge(_request())
            runs.append(judge.stats.delays)
    assert runs[0] == runs[1]


def test_reply_that_breaks_the_schema_is_retried() -> None:
    broken = {**VALID, "score": 1.7}
    with chat_server([("ok", broken), ("ok", {"score": 1.0}), ("ok", VALID)]) as server:
        verdict = _judge(server.url).judge(_request())
    assert verdict.passed is False
    assert len(server.bodies) == 3


def test_slow_reply_past_timeout_is_retried() -> None:
    with chat_server([("slow", 1.5, VALID), ("ok", VALID)]) as server:
        judge = _judge(server.url, timeout=0.3)
        verdict = judge.judge(_request())
    assert verdict.score == 0.5
    assert judge.stats.retries == 1


def test_persistent_5xx_finally_raises_judge_error() -> None:
    with chat_server([("status", 500)] * 5) as server:
        judge = _judge(server.url)
        with pytest.raises(JudgeError, match="gave up after 3 attempts"):
            judge.judge(_request())
    assert len(server.bodies) == FAST.max_attempts
    assert judge.stats.failures == 1


def test_timeouts_every_attempt_raise_judge_error() -> None:
    with chat_server([("slow", 1.0, VALID)] * 3) as server:
        judge = _judge(server.url, timeout=0.2, retry=RetryPolicy(2, 0.01, 0.1, 0.0))
        with pytest.raises(JudgeError, match="APITimeoutError"):
            judge.judge(_request())


def test_client_error_is_not_retried() -> None:
    with chat_server([("status", 401), ("ok", VALID)]) as server:
        judge = _judge(server.url)
        with pytest.raises(JudgeError, match="HTTP 401"):
            judge.judge(_request())
    assert len(server.bodies) == 1


def test_server_without_json_schema_gets_json_object() -> None:
    with chat_server([("status", 400), ("ok", VALID), ("ok", VALID)]) as server:
        judge = _judge(server.url)
        judge.judge(_request())
        judge.judge(_request())
    kinds = [body["response_format"]["type"] for body in server.bodies]
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert judge.stats.json_object_fallbacks == 1


def test_fingerprint_names_backend_model_rubric_and_parameters() -> None:
    judge = HttpJudge("m1", base_url="http://127.0.0.1:9/v1", rubric_version="1", temperature=0.2)
    other = HttpJudge("m1", base_url="http://127.0.0.1:9/v1", rubric_version="1", temperature=0.0)
    assert judge.fingerprint.backend == judge.backend == "openai-compatible"
    assert judge.fingerprint.model == "m1"
    assert judge.fingerprint.rubric_version == "1"
    assert judge.fingerprint.digest != other.fingerprint.digest


def test_concurrency_limit_caps_requests_in_flight() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with chat_server([("slow", 0.2, VALID)] * 6) as server:
        judge = _judge(server.url, limits=JudgeLimits(max_concurrency=2))
        with ThreadPoolExecutor(max_workers=6) as pool:
            verdicts = list(pool.map(lambda _: judge.judge(_request()), range(6)))
    assert len(verdicts) == 6
    assert server.max_in_flight == 2


def test_a_429_waits_its_retry_after_and_has_its_own_attempt_budget() -> None:
    slept: list[float] = []
    script = [("status", 429, {"Retry-After": "0.3"})] * 5 + [("ok", VALID)]
    with chat_server(script) as server:
        judge = _judge(server.url, sleep=slept.append)  # FAST allows 3 attempts for errors
        verdict = judge.judge(_request())
    assert verdict.score == VALID["score"]
    assert len(server.bodies) == 6 and judge.stats.rate_limited == 5
    assert all(delay >= 0.3 for delay in slept)  # at least what the endpoint asked
    assert judge.gate.limit < judge.limits.max_concurrency  # and it asks for less at once


def test_a_503_without_retry_after_backs_off_exponentially() -> None:
    slept: list[float] = []
    with chat_server([("status", 503), ("status", 503), ("ok", VALID)]) as server:
        judge = _judge(server.url, sleep=slept.append)
        judge.judge(_request())
    assert len(slept) == 2 and slept[1] > slept[0] >= FAST.base_delay
