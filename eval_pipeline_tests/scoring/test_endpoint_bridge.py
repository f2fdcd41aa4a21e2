"""The one LLM bridge: library metrics reach the model only through the suite's judge.

A judge-needing DeepEval or RAGAS adapter built with the project's cached HTTP judge sends its
prompts through that judge: a 503 is retried by the judge (its retry counters move), a reply
that is not JSON is retried too, the second scoring of the same run is answered from the judge
cache without a request, and a model that keeps failing gives an ``error`` row naming the
judge. The offline (non-generative) judge cannot answer library prompts: ``unscored``. Both
libraries see their telemetry switched off (``eval_pipeline.offline``, set at import).
"""

from pathlib import Path

import pytest

from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.completion import CompletionRequest
from eval_pipeline.judges.http_judge import HttpJudge, RetryPolicy
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.protocol import JudgeError
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.judges.chat_server import chat_server
from eval_pipeline_tests.scoring.builders import call, make_item, make_run
from eval_pipeline_tests.scoring.scripted_endpoint import scripted_endpoint

RUN = make_run(
    [call("get_order", {"id": "W1"}, result={"status": "shipped"})],
    answer="Order W1 has shipped.",
    user_input="Where is W1?",
)
ITEM = make_item("e", input_messages=({"role": "user", "content": "Where is W1?"},))
FAST = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.05)


def _judge(base_url: str, tmp_path: Path) -> CachedJudge:
    inner = HttpJudge("judge-model-1", base_url=base_url, api_key="k", retry=FAST, timeout=5)
    return CachedJudge(inner, f"sqlite:///{tmp_path / 'cache.db'}")


@pytest.mark.parametrize("metric", ["deepeval.faithfulness", "ragas.faithfulness"])
def test_library_calls_are_retried_and_cached_by_the_judge(metric: str, tmp_path: Path) -> None:
    with scripted_endpoint(fail_first=1) as endpoint:
        judge = _judge(endpoint.url, tmp_path)
        first = build_scorer(metric, judge=judge).score(RUN, ITEM)
        asked = len(endpoint.requests)
        second = build_scorer(metric, judge=judge).score(RUN, ITEM)
    assert first.status == "scored", first.reason
    assert judge.inner.stats.retries == 1  # type: ignore[attr-defined]
    assert len(endpoint.requests) == asked  # the second score made no request
    assert second.value == first.value
    assert judge.stats.hits == judge.stats.calls == asked - 1
    assert all(r["model"] == "judge-model-1" for r in endpoint.requests)


def test_a_reply_that_is_not_json_is_retried(tmp_path: Path) -> None:
    with chat_server([("text", "I think so"), ("ok", {"claims": ["W1 shipped"]})]) as server:
        judge = _judge(server.url, tmp_path)
        reply = judge.complete(CompletionRequest("Extract claims.", {"type": "object"}))
    assert reply == '{"claims": ["W1 shipped"]}'
    assert judge.inner.stats.retries == 1  # type: ignore[attr-defined]
    assert server.bodies[0]["messages"] == [{"role": "user", "content": "Extract claims."}]


def test_a_model_that_keeps_failing_gives_an_error_row_naming_the_judge(tmp_path: Path) -> None:
    # 500s: an error, three attempts (a 503 asks for less and gets the rate-limit budget).
    with chat_server([("status", 500)] * 10) as server:
        judge = _judge(server.url, tmp_path)
        score = build_scorer("deepeval.faithfulness", judge=judge).score(RUN, ITEM)
    assert score.status == "error"
    assert "judge-model-1" in score.reason and "gave up after 3 attempts" in score.reason


def test_offline_judge_cannot_complete_and_leaves_library_judge_metrics_unscored(
    tmp_path: Path,
) -> None:
    cached = CachedJudge(OfflineJudge(), f"sqlite:///{tmp_path / 'cache.db'}")
    with pytest.raises(JudgeError, match="not generative"):
        cached.complete(CompletionRequest("Extract claims.", {"type": "object"}))
    for metric in ("deepeval.task_completion", "ragas.agent_goal_accuracy"):
        score = build_scorer(metric, judge=cached).score(RUN, ITEM)
        assert score.status == "unscored" and "generative judge" in score.reason


def test_the_libraries_see_their_telemetry_off() -> None:
    from deepeval.telemetry import telemetry_opt_out
    from ragas._analytics import do_not_track

    assert telemetry_opt_out() and do_not_track()
