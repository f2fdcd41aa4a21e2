"""Judging at production speed: requests in flight up to the suite's limit, measured server-side.

Every test talks to a real HTTP server on loopback (``benchmarks.fake_llm``: fixed latency,
deterministic replies, an optional 429 above N in flight) and counts on the server's side how
many requests were in flight at once. Judged metrics, several metrics of one build, calibration
and the library adapters must fill the judge's ``max_concurrency``; the rows must not depend on
it; a 429 is backed off from (every case scored, none asked twice after an answer, the server's
limit kept once learnt); a request the model refuses is that row's error, not a stalled build.
"""

from collections.abc import Sequence
from pathlib import Path

import pytest

from benchmarks.fake_llm import FakeLLM, fake_llm
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.home import Home
from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.http_judge import HttpJudge, RetryPolicy
from eval_pipeline.judges.limits import JudgeLimits
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.model import AgentRun
from eval_pipeline_tests.scoring.builders import call, make_item, make_run

MODEL = "gpt-4o"  # a name DeepEval's structured-output path knows; the server ignores it


def _cases(n: int, marker: str = "") -> tuple[list[AgentRun], list[DatasetItem]]:
    runs, items = [], []
    for k in range(n):
        item_id = f"case-{k:03d}"
        answer = f"Order W{k} was pending, so I cancelled it and refunded {k} dollars."
        if marker and k == 3:
            answer += f" {marker}"
        runs.append(
            make_run(
                [call("get_order", {"id": f"W{k}"}, result={"status": "pending"})],
                answer=answer,
                trace_id=f"{k + 1:032x}",
                item_id=item_id,
                retrieved=(f"Order W{k} may be cancelled while pending.",),
                user_input=f"Please cancel order W{k}.",
            )
        )
        items.append(make_item(item_id, input_messages=({"role": "user", "content": "cancel"},)))
    return runs, items


def _judge(server: FakeLLM, tmp_path: Path, concurrency: int, **limits: float) -> CachedJudge:
    inner = HttpJudge(
        MODEL,
        base_url=server.url,
        api_key="test-key",
        limits=JudgeLimits(max_concurrency=concurrency, **limits),  # type: ignore[arg-type]
        retry=RetryPolicy(base_delay=0.05, max_delay=1.0),
    )
    return CachedJudge(inner, f"sqlite:///{tmp_path / f'cache-{concurrency}.db'}")


def _score(
    judge: CachedJudge, metrics: Sequence[str], runs: list[AgentRun], items: list[DatasetItem]
) -> list[Score]:
    scorers = [build_scorer(metric, judge=judge) for metric in metrics]
    return score_build("b", runs, items, scorers, runs_per_item=1).scores


def test_a_judged_metric_fills_the_judges_concurrency(tmp_path: Path) -> None:
    runs, items = _cases(24)
    shown: list[tuple[int, int]] = []
    with fake_llm(latency=0.2) as server:
        judge = _judge(server, tmp_path, 8)
        judge.watch(lambda done, total: shown.append((done, total)))  # the CLI's progress bar
        rows = _score(judge, ["faithfulness"], runs, items)
    assert [r.status for r in rows] == ["scored"] * 24
    assert server.answered == 24
    assert server.max_in_flight == 8  # was 1: one request at a time
    assert shown[-1] == (24, 24) and len(shown) == 25  # asked 24, then each answer as it came


def test_metrics_of_a_build_are_judged_together(tmp_path: Path) -> None:
    runs, items = _cases(4)
    with fake_llm(latency=0.3) as server:
        rows = _score(
            _judge(server, tmp_path, 8), ["faithfulness", "answer_relevancy"], runs, items
        )
    assert sum(r.status == "scored" for r in rows) == 8
    assert server.max_in_flight == 8  # both metrics' four requests at once


@pytest.mark.parametrize("metric", ["deepeval.faithfulness", "ragas.faithfulness"])
def test_library_adapters_score_runs_concurrently(tmp_path: Path, metric: str) -> None:
    runs, items = _cases(8)
    with fake_llm(latency=0.1) as server:
        rows = _score(_judge(server, tmp_path, 8), [metric], runs, items)
    assert [r.status for r in rows] == ["scored"] * 8, [r.reason for r in rows]
    assert server.max_in_flight >= 6  # was 1: measure(async_mode=False), one case at a time
    # Cases whose prompts coincide (the fake's claims repeat) share one answer, even in flight.
    assert server.answered_twice() == 0


def test_calibration_judges_its_items_concurrently(tmp_path: Path) -> None:
    from eval_pipeline.evaluation.calibration_stage import CALIBRATION_SETS, calibrate_judge_on

    entry = CALIBRATION_SETS["human-labels/agent-faithfulness-v1"]
    home = Home(tmp_path / "home").ensure()
    with fake_llm(latency=0.2) as server:
        report = calibrate_judge_on(home, _judge(server, tmp_path, 8), entry)
    assert report["n"] == server.answered == 22
    assert server.max_in_flight == 8  # was 1: calibration ran with one worker


def test_rows_are_the_same_at_concurrency_1_and_16(tmp_path: Path) -> None:
    runs, items = _cases(8)
    metrics = ["faithfulness", "answer_relevancy", "deepeval.faithfulness", "ragas.faithfulness"]
    with fake_llm(latency=0.05) as server:
        one = _score(_judge(server, tmp_path, 1), metrics, runs, items)
        assert server.max_in_flight == 1
        server.reset()
        sixteen = _score(_judge(server, tmp_path, 16), metrics, runs, items)
        assert server.max_in_flight > 8
    assert {r.status for r in one} == {"scored"}
    assert sixteen == one


def test_a_429_above_8_in_flight_is_backed_off_and_every_case_scored_once(tmp_path: Path) -> None:
    runs, items = _cases(37)
    with fake_llm(latency=0.2, reject_above=8, retry_after=0.2) as server:
        rows = _score(_judge(server, tmp_path, 16), ["faithfulness"], runs, items)
        arrivals = list(server.arrivals)
    assert [r.status for r in rows] == ["scored"] * 37
    assert server.answered == 37 and server.answered_twice() == 0
    assert server.max_in_flight <= 8
    # The limit is learnt: refusals happen while probing it, not on every request.
    assert 0 < server.rejected <= 16, server.rejected
    assert len(arrivals) == 37 + server.rejected


def test_requests_per_minute_is_respected(tmp_path: Path) -> None:
    runs, items = _cases(10)
    with fake_llm(latency=0.01) as server:
        rows = _score(
            _judge(server, tmp_path, 16, requests_per_minute=600), ["faithfulness"], runs, items
        )
        arrivals = sorted(server.arrivals)
    assert [r.status for r in rows] == ["scored"] * 10
    # 600 per minute: the k-th start is at k * 0.1 s at the earliest. A request reaches the
    # server up to SEND_DELAY_S after its start (threads of a busy machine), so the k-th
    # arrival is at least k * 0.1 s after the first start, and j - i arrivals span at least
    # (j - i) * 0.1 - SEND_DELAY_S. Unpaced, the ten arrive within a few milliseconds.
    send_delay_s = 0.25
    for i, first in enumerate(arrivals):
        for j in range(i + 1, len(arrivals)):
            assert arrivals[j] - first >= (j - i) * 0.1 - send_delay_s, (i, j, arrivals)
    assert arrivals[-1] - arrivals[0] >= 0.9 - send_delay_s


def test_a_refused_request_is_its_rows_error_and_the_rest_are_scored(tmp_path: Path) -> None:
    runs, items = _cases(10, marker="REFUSE-THIS")
    with fake_llm(latency=0.05, fail_marker="REFUSE-THIS") as server:
        rows = _score(_judge(server, tmp_path, 8), ["faithfulness"], runs, items)
    statuses = {r.item_id: r.status for r in rows}
    assert statuses.pop("case-003") == "error"
    assert set(statuses.values()) == {"scored"}
    # A 400 is not retried; it is asked once in json_object mode, in case the server only
    # refused the structured-output format, and the judge keeps json_schema for the others.
    assert server.failed == 2
