"""Benchmark: agent runs scored per second by the deterministic suite.

Runs are synthetic but real-shaped: the tool calls (names, arguments, errors) and expected
actions of the 120 published tau2-bench simulations (package data ``benchmarks/tau2_checks``),
cycled to ``n_runs`` runs with fresh span ids, each with a final answer claiming an action, a
hand-off and the items' ordering constraints, forbidden calls and end state. Every
deterministic scorer runs on every run through ``score_run`` (exceptions contained, each row
built with the run's identity).

The reference, measured in the same process on the same runs, is the least a scorer of this
kind must do: a plain loop computing tool-name recall against the expected actions, without
building score rows. ``ratio`` = suite throughput / reference throughput (how many such
minimal passes the full ten-metric suite costs).

``peers``: RAGAS ``ToolCallAccuracy`` and DeepEval ``ToolCorrectnessMetric``, each one metric,
run directly (one metric instance, the library's own call) on the first ``peer_runs`` of the
same runs in the same process. Their inputs (RAGAS messages, DeepEval test cases) are built
before the clock starts and their warnings are silenced, so the figures favour the peers; the
suite and the peers take turns (five rounds) so that a shared machine loads them alike.
``suite_vs_ragas_single_metric`` = the whole suite's runs/s over RAGAS's one metric's.
Throughput is wall-clock runs/s of one thread; ``runs_per_cpu_s`` divides by the process's CPU
time instead (runs per second of one core, steadier on a shared machine).
"""

import itertools
import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import (
    DatasetItem,
    ExpectedToolCall,
    ForbiddenCall,
    OrderingConstraint,
)
from eval_pipeline.offline import disable_telemetry
from eval_pipeline.scoring.registry import build_scorer, score_run, select_metric_ids
from eval_pipeline.traces.model import AgentRun, EvalContext, Handoff, ToolCall

FIXTURE = Path(__file__).parent / "tau2_checks" / "tau2_action_checks.json"
_ANSWERS = (
    "I have cancelled the reservation and sent you a confirmation.",
    "Your order has been returned successfully; the refund goes to your card.",
    "I could not modify the order because it has already shipped.",
)


def _cases(n_runs: int, distinct_answers: bool = False) -> list[tuple[AgentRun, DatasetItem]]:
    """``n_runs`` tau2-shaped runs and their items (the calls cycled, fresh span ids).

    ``distinct_answers`` ends every final answer with the run's own reference, so no two
    runs share an answer text: production answers rarely repeat, and the claims memo
    (``action_claims``, per answer text) must not make the benchmark faster than real use.
    """
    sims = json.loads(FIXTURE.read_text())
    ids = itertools.count(1)
    cases = []
    for index, sim in zip(range(n_runs), itertools.cycle(sims), strict=False):
        calls = tuple(
            ToolCall(
                name=c["name"],
                arguments=c["arguments"],
                result="ok",
                error="tool error" if c["error"] else None,
                span_id=f"{next(ids):016x}",
                agent_name="support" if i % 2 else "triage",
            )
            for i, c in enumerate(sim["tool_calls"])
        )
        actions = sim["expected_actions"]
        expected = tuple(
            ExpectedToolCall(a["name"], {k: [v] for k, v in a["arguments"].items()})
            for a in actions
        )
        writes = [a for a in actions if not a["name"].startswith(("get_", "find_", "list_"))]
        ordering = (
            tuple(OrderingConstraint(expected[0].name, w["name"]) for w in writes[:2])
            if expected
            else ()
        )
        item = DatasetItem(
            item_id=f"{sim['source']}:{sim['task_id']}",
            expected_tool_calls=expected,
            ordering=ordering,
            forbidden_calls=(ForbiddenCall("delete_account"),),
            canaries=("CANARY-0000",),
            required_entities=("#W",),
            expected_end_state={"actions": writes},
        )
        run = AgentRun(
            trace_id=f"{index:032x}",
            root_span_id=f"{next(ids):016x}",
            spans=(),
            tool_calls=calls,
            final_answer=_ANSWERS[index % len(_ANSWERS)]
            + (f" Reference R{index:07d}." if distinct_answers else ""),
            handoffs=(Handoff("triage", "support", f"{next(ids):016x}", "order #W1"),),
            eval_context=EvalContext(item_id=item.item_id, run_index=index % 3),
            start_time_unix_nano=0,
            end_time_unix_nano=1_000_000_000,
        )
        cases.append((run, item))
    return cases


def _reference(cases: list[tuple[AgentRun, DatasetItem]]) -> float:
    total = 0.0
    for run, item in cases:
        names = [c.name for c in run.tool_calls]
        wanted = [e.name for e in item.expected_tool_calls]
        hits = sum(1 for w in wanted if w in names)
        total += hits / len(wanted) if wanted else 0.0
    return total


def _timed(work: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of ``work()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def _throughput(n: int, seconds: tuple[float, float]) -> dict[str, Any]:
    wall, cpu = seconds
    return {
        "runs": n,
        "runs_per_s": round(n / wall, 1),
        "runs_per_cpu_s": round(n / cpu, 1) if cpu > 0 else None,
    }


_ROUNDS = 5
"""The suite and the peers take turns, a fifth of their runs each turn, so that on a shared
machine they meet the same load."""


def _chunks(items: list[Any], rounds: int) -> list[list[Any]]:
    size = -(-len(items) // rounds)
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


def _ragas_tool_call_accuracy(cases: list[tuple[AgentRun, DatasetItem]]) -> Callable[[int], None]:
    """A function scoring turn ``k``'s share of ``cases`` with RAGAS's ToolCallAccuracy."""
    import ragas.metrics.collections as collections

    from eval_pipeline.scoring.adapters.conversion import ragas_messages, ragas_reference_calls

    inputs = [(ragas_messages(run, item), ragas_reference_calls(item)) for run, item in cases]
    turns = _chunks(inputs, _ROUNDS)
    metric = collections.ToolCallAccuracy()

    def work(turn: int) -> None:
        for messages, reference in turns[turn] if turn < len(turns) else ():
            metric.score(user_input=messages, reference_tool_calls=reference)

    return work


def _deepeval_tool_correctness(cases: list[tuple[AgentRun, DatasetItem]]) -> Callable[[int], None]:
    """A function scoring turn ``k``'s share of ``cases`` with DeepEval's ToolCorrectnessMetric."""
    from deepeval.metrics import ToolCorrectnessMetric

    from eval_pipeline.scoring.adapters.conversion import deepeval_test_case
    from eval_pipeline.scoring.adapters.llm_bridge import deepeval_unused_llm

    turns = _chunks([deepeval_test_case(run, item) for run, item in cases], _ROUNDS)
    metric = ToolCorrectnessMetric(model=deepeval_unused_llm(), async_mode=False)

    def work(turn: int) -> None:
        for case in turns[turn] if turn < len(turns) else ():
            metric.measure(case, _show_indicator=False)

    return work


def run(n_runs: int = 10000, peer_runs: int = 2000) -> dict[str, Any]:
    """Score ``n_runs`` runs with every deterministic scorer, and the peers; JSON-safe."""
    disable_telemetry()  # again, before the peers import: their telemetry stays off
    cases = _cases(n_runs, distinct_answers=True)
    metrics = select_metric_ids(needs_judge=False)
    scorers = [build_scorer(metric) for metric in metrics]
    peer_cases = cases[: max(1, min(peer_runs, n_runs))]
    peers: dict[str, Callable[[int], None]] = {
        "ragas.ToolCallAccuracy": _ragas_tool_call_accuracy(peer_cases),
        "deepeval.ToolCorrectnessMetric": _deepeval_tool_correctness(peer_cases),
    }
    suite_turns = _chunks(cases, _ROUNDS)
    rows = 0
    statuses: dict[str, int] = {}

    def suite(turn: int) -> None:
        nonlocal rows
        for run_, item in suite_turns[turn] if turn < len(suite_turns) else ():
            for row in score_run(run_, item, scorers, build="bench"):
                rows += 1
                statuses[row.status] = statuses.get(row.status, 0) + 1

    spent = {name: [0.0, 0.0] for name in ["suite", *peers]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RAGAS warns on every length mismatch
        for turn in range(_ROUNDS):
            for name, work in [("suite", suite), *peers.items()]:
                wall, cpu = _timed(lambda: work(turn))  # noqa: B023 - called at once
                spent[name][0] += wall
                spent[name][1] += cpu
    reference_s, _ = _timed(lambda: _reference(cases))
    suite_s, suite_cpu_s = spent["suite"]
    runs_per_s = n_runs / suite_s
    reference_per_s = n_runs / reference_s
    peer_figures = {
        name: _throughput(len(peer_cases), (spent[name][0], spent[name][1])) for name in peers
    }
    ragas = peer_figures["ragas.ToolCallAccuracy"]
    return {
        "benchmark": "score",
        "runs": n_runs,
        "metrics": list(metrics),
        "score_rows": rows,
        "by_status": statuses,
        "seconds": round(suite_s, 3),
        "runs_per_s": round(runs_per_s, 1),
        "runs_per_cpu_s": round(n_runs / suite_cpu_s, 1) if suite_cpu_s > 0 else None,
        "rows_per_s": round(rows / suite_s, 1),
        "reference": "plain tool-name recall loop, no score rows",
        "reference_runs_per_s": round(reference_per_s, 1),
        "ratio": round(runs_per_s / reference_per_s, 5),
        "peers": peer_figures,
        "suite_vs_ragas_single_metric": round(runs_per_s / ragas["runs_per_s"], 3),
        "suite_vs_ragas_single_metric_cpu": (
            round(n_runs / suite_cpu_s / ragas["runs_per_cpu_s"], 3)
            if suite_cpu_s > 0 and ragas["runs_per_cpu_s"]
            else None
        ),
    }
