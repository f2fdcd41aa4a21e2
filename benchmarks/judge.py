"""Benchmark: judged test cases per second, eval-pipeline against DeepEval and RAGAS.

One fake OpenAI-compatible endpoint (``benchmarks.fake_llm``: a real HTTP server on a free
loopback port, a fixed latency per request, optionally answering 429 above N requests in
flight) serves every tool in the same process, one after another, on the same faithfulness
test cases (a question, an answer, the evidence), with the same concurrency limit given to each
tool's own setting:

* ``eval-pipeline``: the ``faithfulness`` metric through ``score_build``, its judge an
  ``HttpJudge`` with ``max_concurrency`` = the limit, behind a cold judge cache (a new
  database per round, so every case asks the model);
* ``eval-pipeline deepeval.faithfulness`` / ``ragas.faithfulness``: the library adapters over
  the same judge (the library's prompts, eval-pipeline's cache, retries and limits);
* ``deepeval``: DeepEval's ``evaluate`` with ``FaithfulnessMetric`` on its own OpenAI client,
  ``AsyncConfig(max_concurrent=limit)`` (test cases at once, each asking several prompts);
* ``ragas``: RAGAS's ``evaluate`` with ``Faithfulness`` on its own ``AsyncOpenAI`` client,
  ``RunConfig(max_workers=limit)``.

The server counts what each tool did: calls per case (answered requests / cases), refusals,
the most requests in flight, prompts answered more than once. A warm-up round of two cases per
tool runs first (imports, client start-up), not timed; then ``rounds`` timed rounds take turns
so a shared machine loads the tools alike; figures are per round and their median. Every
library's telemetry is off in code (``eval_pipeline.offline``) and DeepEval writes its run files
to a temporary folder.
"""

import contextlib
import io
import os
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.fake_llm import FakeLLM, fake_llm
from eval_pipeline.offline import disable_telemetry

MODEL = "gpt-4o"  # a name DeepEval's client knows (structured outputs); the server ignores it
_PRODUCTS = ("order", "booking", "subscription", "refund", "parcel", "invoice", "account")
_STATES = ("pending", "shipped", "cancelled", "delivered", "on hold")


@dataclass(frozen=True)
class Case:
    """One faithfulness test case, as every tool receives it."""

    case_id: str
    question: str
    answer: str
    contexts: tuple[str, ...]


def cases(n: int) -> list[Case]:
    """``n`` distinct faithfulness cases (some answers faithful to their evidence, some not)."""
    made = []
    for k in range(n):
        thing, state = _PRODUCTS[k % len(_PRODUCTS)], _STATES[k % len(_STATES)]
        other = _STATES[(k + 2) % len(_STATES)]
        said = state if k % 3 else other
        made.append(
            Case(
                f"case-{k:03d}",
                f"What is the status of my {thing} W{1000 + k}?",
                f"Your {thing} W{1000 + k} is {said}; it was updated {k % 5 + 1} days ago.",
                (
                    f"{thing} W{1000 + k}: status {state}, last update {k % 5 + 1} days ago.",
                    f"Customer asked about {thing} W{1000 + k} on day {k}.",
                ),
            )
        )
    return made


Tool = Callable[[list[Case], str, int, Path], int]


def _eval_pipeline(metric: str) -> Tool:
    def run(batch: list[Case], url: str, limit: int, work: Path) -> int:
        from eval_pipeline.datasets.item import DatasetItem
        from eval_pipeline.judges.cache import CachedJudge
        from eval_pipeline.judges.http_judge import HttpJudge
        from eval_pipeline.judges.limits import JudgeLimits
        from eval_pipeline.scoring.batch import score_build
        from eval_pipeline.scoring.registry import build_scorer
        from eval_pipeline.traces.model import AgentRun, EvalContext, RetrievedDocument

        judge = CachedJudge(
            HttpJudge(MODEL, base_url=url, api_key="bench", limits=JudgeLimits(limit)),
            f"sqlite:///{work / f'cache-{time.monotonic_ns()}.db'}",
        )
        runs = [
            AgentRun(
                trace_id=f"{k + 1:032x}",
                root_span_id=None,
                spans=(),
                retrieved=tuple(
                    RetrievedDocument(text, f"{k + 1:08x}{j:08x}")
                    for j, text in enumerate(c.contexts)
                ),
                user_input=c.question,
                final_answer=c.answer,
                eval_context=EvalContext(item_id=c.case_id, run_index=0),
            )
            for k, c in enumerate(batch)
        ]
        items = [
            DatasetItem(c.case_id, input_messages=({"role": "user", "content": c.question},))
            for c in batch
        ]
        scorer = build_scorer(metric, judge=judge)
        rows = score_build("bench", runs, items, [scorer], runs_per_item=1).scores
        return sum(row.status == "scored" for row in rows)

    return run


def _deepeval(batch: list[Case], url: str, limit: int, work: Path) -> int:
    from deepeval.evaluate import evaluate
    from deepeval.evaluate.configs import AsyncConfig, CacheConfig, DisplayConfig, ErrorConfig
    from deepeval.metrics import BaseMetric, FaithfulnessMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model=MODEL, base_url=url, api_key="bench")
    metrics: list[BaseMetric] = [FaithfulnessMetric(model=model)]
    test_cases = [
        LLMTestCase(input=c.question, actual_output=c.answer, retrieval_context=list(c.contexts))
        for c in batch
    ]
    with contextlib.redirect_stdout(io.StringIO()):
        result = evaluate(
            test_cases=test_cases,
            metrics=metrics,
            async_config=AsyncConfig(max_concurrent=limit),
            display_config=DisplayConfig(show_indicator=False, print_results=False),
            cache_config=CacheConfig(write_cache=False, use_cache=False),
            error_config=ErrorConfig(ignore_errors=True),
        )
    return sum(
        1
        for test in result.test_results
        for data in test.metrics_data or []
        if data.score is not None and data.error is None
    )


def _ragas(batch: list[Case], url: str, limit: int, work: Path) -> int:
    from openai import AsyncOpenAI
    from ragas import EvaluationDataset, SingleTurnSample, evaluate
    from ragas.llms.base import llm_factory
    from ragas.metrics import Faithfulness
    from ragas.run_config import RunConfig

    llm = llm_factory(MODEL, client=AsyncOpenAI(base_url=url, api_key="bench"))
    dataset = EvaluationDataset(
        [
            SingleTurnSample(
                user_input=c.question, response=c.answer, retrieved_contexts=list(c.contexts)
            )
            for c in batch
        ]
    )
    result: Any = evaluate(
        dataset,
        metrics=[Faithfulness()],
        llm=llm,  # type: ignore[arg-type]  # accepted at run time; annotated narrower
        run_config=RunConfig(max_workers=limit),
        show_progress=False,
    )
    scores = result.to_pandas()["faithfulness"]
    return int(scores.notna().sum())


TOOLS: dict[str, Tool] = {
    "eval-pipeline": _eval_pipeline("faithfulness"),
    "eval-pipeline deepeval.faithfulness": _eval_pipeline("deepeval.faithfulness"),
    "eval-pipeline ragas.faithfulness": _eval_pipeline("ragas.faithfulness"),
    "deepeval": _deepeval,
    "ragas": _ragas,
}


def _measure(tool: Tool, batch: list[Case], server: FakeLLM, limit: int, work: Path) -> dict:
    server.reset()
    start = time.perf_counter()
    scored = tool(batch, server.url, limit, work)
    wall = time.perf_counter() - start
    return {
        "cases_per_s": round(len(batch) / wall, 2),
        "calls_per_case": round(server.answered / len(batch), 2),
        "requests": server.requests,
        "rejected_429": server.rejected,
        "most_in_flight": server.max_in_flight,
        "prompts_answered_twice": server.answered_twice(),
        "scored": scored,
        "wall_s": round(wall, 2),
    }


def run(
    *,
    n_cases: int = 37,
    latency: float = 0.5,
    concurrency: int = 16,
    reject_above: int | None = None,
    rounds: int = 1,
    tools: tuple[str, ...] = tuple(TOOLS),
) -> dict[str, Any]:
    """Measure every tool (see the module docstring); the result as a JSON-safe dict."""
    disable_telemetry()
    batch = cases(n_cases)
    per_tool: dict[str, list[dict]] = {name: [] for name in tools}
    with tempfile.TemporaryDirectory(prefix="bench-judge-") as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        work = Path(folder)
        os.environ["DEEPEVAL_RESULTS_FOLDER"] = str(work / "deepeval-results")
        with fake_llm(latency, reject_above=reject_above, retry_after=1.0) as server:
            for name in tools:
                _measure(TOOLS[name], cases(2), server, concurrency, work)  # warm-up
            for _ in range(rounds):
                for name in tools:
                    per_tool[name].append(_measure(TOOLS[name], batch, server, concurrency, work))
    summary = {
        name: {
            **figures[-1],
            "cases_per_s": statistics.median(f["cases_per_s"] for f in figures),
            "cases_per_s_rounds": [f["cases_per_s"] for f in figures],
        }
        for name, figures in per_tool.items()
    }
    ours = summary.get("eval-pipeline", {}).get("cases_per_s")
    ratios = {
        f"eval_pipeline_vs_{peer}": round(ours / summary[peer]["cases_per_s"], 2)
        for peer in ("deepeval", "ragas")
        if ours and peer in summary and summary[peer]["cases_per_s"]
    }
    return {
        "cases": n_cases,
        "latency_s": latency,
        "concurrency": concurrency,
        "reject_above": reject_above,
        "rounds": rounds,
        "tools": summary,
        **ratios,
    }
