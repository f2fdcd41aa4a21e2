"""The judge trace of a scoring job: calls from many threads, stored once, failures on record.

Against a real HTTP server on loopback (``benchmarks.fake_llm``): a build judged sixteen requests
at a time records every request as a chat span from the judge's worker threads and stores them
in one batch (one part in the judge partition), each row naming its own call; a request the
model refuses is that row's error and names its failed call (an error span with the HTTP
status); a rescore from the cache records nothing and names the first job's calls. The judge's
cost is the calls' tokens x the price table, unknown (not zero) for a model it does not price.
"""

from dataclasses import replace
from pathlib import Path

from benchmarks.fake_llm import FakeLLM, fake_llm
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.call_refs import split_call
from eval_pipeline.judges.call_spans import CALLER
from eval_pipeline.judges.http_judge import HttpJudge, RetryPolicy
from eval_pipeline.judges.judge_trace import chat_spans, judge_build, judge_trace
from eval_pipeline.judges.limits import JudgeLimits
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline.scoring.score import Score
from eval_pipeline.suites.judge_cost import judge_cost
from eval_pipeline.suites.prices import PriceTable
from eval_pipeline.traces.model import AgentRun, Span, StatusCode
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.scoring.builders import call, make_item, make_run

REFUSED = "REFUSE-THIS"


def _cases(n: int) -> tuple[list[AgentRun], list[DatasetItem]]:
    runs, items = [], []
    for k in range(n):
        answer = f"Order W{k} was pending, so I cancelled it." + (f" {REFUSED}" if k == 3 else "")
        runs.append(
            make_run(
                [call("get_order", {"id": f"W{k}"}, result={"status": "pending"})],
                answer=answer,
                trace_id=f"{k + 1:032x}",
                item_id=f"case-{k:03d}",
                retrieved=(f"Order W{k} may be cancelled while pending.",),
                user_input=f"Please cancel order W{k}.",
            )
        )
        items.append(make_item(f"case-{k:03d}", input_messages=({"role": "user", "content": "x"},)))
    return runs, items


def _judge(server: FakeLLM, tmp_path: Path, model: str = "gpt-4o") -> CachedJudge:
    inner = HttpJudge(
        model,
        base_url=server.url,
        api_key="test-key",
        limits=JudgeLimits(max_concurrency=16),
        retry=RetryPolicy(base_delay=0.01, max_delay=0.05),
    )
    return CachedJudge(inner, f"sqlite:///{tmp_path / 'cache.db'}")


def _job(
    judge: CachedJudge, store: TraceStore, runs: list[AgentRun], items: list[DatasetItem]
) -> tuple[list[Score], str, int]:
    scorers = [build_scorer("faithfulness", judge=judge)]
    with judge_trace(judge, "b", store) as recorder:
        rows = score_build("b", runs, items, scorers, runs_per_item=1).scores
    return rows, recorder.trace_id, recorder.calls


def _stored(store: TraceStore) -> dict[str, Span]:
    return {s.span_id: s for s in chat_spans(store.read_spans(judge_build("b")))}


def test_calls_from_many_threads_are_recorded_and_stored_in_one_batch(tmp_path: Path) -> None:
    runs, items = _cases(40)
    store = TraceStore(tmp_path / "store")
    with fake_llm(latency=0.05, fail_marker=REFUSED) as server:
        judge = _judge(server, tmp_path)
        rows, trace_id, made = _job(judge, store, runs, items)
        assert server.max_in_flight == 16  # recording kept the judge's concurrency
        sent = server.requests

    spans = _stored(store)
    # One chat span per request, none lost: 40 cases, the refused one asked twice (the judge
    # retries a 400 in json_object mode, for servers that refuse json_schema).
    assert made == sent == len(spans) == 41
    assert len(store.ledger.parts(judge_build("b"))) == 1  # the job's spans in one write
    named = [ref for row in rows for ref in row.judge_calls]
    assert len(named) == len(set(named)) == 41  # each row names its own calls
    for row, run in zip(rows, runs, strict=True):
        trace, span_id = split_call(row.judge_calls[0])
        assert trace == trace_id
        prompt = spans[span_id].input_messages[-1].text
        assert (run.final_answer or "") in prompt  # the call of this run, not another's
        assert spans[span_id].attributes[CALLER] == "faithfulness"  # who asked: the rubric

    refused = rows[3]
    assert refused.status == "error"  # the model refused it (400): the row's own error
    failed = [spans[split_call(ref)[1]] for ref in refused.judge_calls]
    assert len(failed) == 2  # both requests it took, each an error span with the HTTP status
    for span in failed:
        assert span.status_code == StatusCode.ERROR and span.attributes["error.type"] == "400"
        assert span.output_messages == ()


def test_a_rescore_from_the_cache_records_nothing_and_names_the_first_calls(
    tmp_path: Path,
) -> None:
    runs, items = _cases(6)
    store = TraceStore(tmp_path / "store")
    with fake_llm(latency=0.01) as server:
        judge = _judge(server, tmp_path)
        first, first_trace, _ = _job(judge, store, runs, items)
        sent = server.requests
        again, _, made = _job(judge, store, runs, items)
        assert server.requests == sent and made == 0
    assert [r.judge_calls for r in again] == [r.judge_calls for r in first]
    assert {split_call(ref)[0] for r in again for ref in r.judge_calls} == {first_trace}
    assert len(store.ledger.parts(judge_build("b"))) == 1  # the empty job stored nothing


def test_judge_cost_is_tokens_times_the_price_table(tmp_path: Path) -> None:
    runs, items = _cases(4)
    store = TraceStore(tmp_path / "store")
    with fake_llm(latency=0.01) as server:
        _job(_judge(server, tmp_path, "gpt-4o-mini"), store, runs, items)
    spans = list(_stored(store).values())
    cost = judge_cost(spans, PriceTable.load())
    assert (cost.calls, cost.input_tokens, cost.output_tokens) == (4, 4, 4)
    assert cost.cost_usd is not None and abs(cost.cost_usd - 4 * (0.15 + 0.60) / 1e6) < 1e-15
    assert cost.models == ("gpt-4o-mini",)

    unpriced = judge_cost([replace(s, model="my-llm") for s in spans], PriceTable.load())
    assert unpriced.cost_usd is None and "my-llm" in (unpriced.unknown or "")
