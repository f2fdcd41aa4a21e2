"""Benchmark: agent runs scored per second by the deterministic suite.

Runs are synthetic but real-shaped: the tool calls (names, arguments, errors) and expected
actions of the 120 published tau2-bench simulations (package data ``benchmarks/tau2_checks``),
cycled to ``n_runs`` runs with fresh span ids, each with a final answer claiming an action, a
hand-off and the items' ordering constraints, forbidden calls and end state. Every
deterministic scorer runs on every run through ``score_run`` (exceptions contained, rows
stamped).

The reference, measured in the same process on the same runs, is the least a scorer of this
kind must do: a plain loop computing tool-name recall against the expected actions, without
building score rows. ``ratio`` = suite throughput / reference throughput (how many such
minimal passes the full ten-metric suite costs).
"""

import itertools
import json
import time
from typing import Any

from eval_pipeline.datasets.item import (
    DatasetItem,
    ExpectedToolCall,
    ForbiddenCall,
    OrderingConstraint,
)
from eval_pipeline.package_data import package_path
from eval_pipeline.scoring.registry import build_scorer, score_run, select_metric_ids
from eval_pipeline.traces.model import AgentRun, EvalContext, Handoff, ToolCall

FIXTURE = package_path("eval_pipeline.benchmarks", "tau2_checks", "tau2_action_checks.json")
_ANSWERS = (
    "I have cancelled the reservation and sent you a confirmation.",
    "Your order has been returned successfully; the refund goes to your card.",
    "I could not modify the order because it has already shipped.",
)


def _cases(n_runs: int) -> list[tuple[AgentRun, DatasetItem]]:
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
            final_answer=_ANSWERS[index % len(_ANSWERS)],
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


def run(n_runs: int = 10000) -> dict[str, Any]:
    """Score ``n_runs`` runs with every deterministic scorer; JSON-safe results."""
    cases = _cases(n_runs)
    metrics = select_metric_ids(needs_judge=False)
    scorers = [build_scorer(metric) for metric in metrics]
    start = time.perf_counter()
    rows = 0
    statuses: dict[str, int] = {}
    for run_, item in cases:
        for row in score_run(run_, item, scorers, build="bench"):
            rows += 1
            statuses[row.status] = statuses.get(row.status, 0) + 1
    suite_s = time.perf_counter() - start
    start = time.perf_counter()
    _reference(cases)
    reference_s = time.perf_counter() - start
    runs_per_s = n_runs / suite_s
    reference_per_s = n_runs / reference_s
    return {
        "benchmark": "score",
        "runs": n_runs,
        "metrics": list(metrics),
        "score_rows": rows,
        "by_status": statuses,
        "seconds": round(suite_s, 3),
        "runs_per_s": round(runs_per_s, 1),
        "rows_per_s": round(rows / suite_s, 1),
        "reference": "plain tool-name recall loop, no score rows",
        "reference_runs_per_s": round(reference_per_s, 1),
        "ratio": round(runs_per_s / reference_per_s, 5),
    }
