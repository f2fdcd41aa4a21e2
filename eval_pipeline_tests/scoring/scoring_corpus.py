"""A fixed corpus of (run, item) pairs and scorer sets, for digests of the suite's score rows.

The hot path of the deterministic scorers is tuned for speed; its rows must not change. This
corpus gathers the shapes the scorer tests use (the benchmark's tau2 runs, variants of them
with JSON-text arguments, omittable and case-varied acceptable values, alternative and optional
trajectories, schemas, failed calls and incomplete traces, the AgentDojo injection cases and the
real OpenAI Agents traces) built with span ids of its own, so the rows are the same whatever
ran before. ``row_text`` is every field of a row as ``repr`` shows it (dict order, tuple vs
list and exact floats included).
"""

import hashlib
import itertools
import json
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

from benchmarks.score import _cases
from eval_pipeline.datasets.item import (
    DatasetItem,
    ExpectedToolCall,
    ForbiddenCall,
    OrderingConstraint,
)
from eval_pipeline.package_data import package_path
from eval_pipeline.scoring.action_claims import DEFAULT_ACTION_VERBS
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.registry import build_scorer, select_metric_ids
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.decode.otlp import JSON, decode_otlp
from eval_pipeline.traces.model import AgentRun, EvalContext, Handoff, ToolCall
from eval_pipeline.traces.normalise.normaliser import normalise_spans
from eval_pipeline.traces.runs.assemble import assemble_runs

Pair = tuple[AgentRun, DatasetItem]
_DATA = Path(__file__).resolve().parents[2] / "data"
_TAU2 = package_path("benchmarks", "tau2_checks", "tau2_action_checks.json")
_ANSWERS = (
    "I have cancelled the reservation and sent you a confirmation.",
    "Your refund of $20 has been issued. I could not book the flight.",
    "If you want, I can cancel it. Nothing was changed.",
    "",
    "Order cancelled. I've processed your exchange and updated the address for #W1.",
)


_ADDED_SINCE = frozenset({"judge_calls"})
"""Fields added after the digests were recorded: they count when set (a row the digests cover,
made by no judge call, leaves them empty)."""


def row_text(row: Score) -> str:
    """Every field of ``row``, in order, as ``repr`` shows it."""
    return repr(
        tuple(
            getattr(row, f.name)
            for f in fields(Score)
            if f.name not in _ADDED_SINCE or getattr(row, f.name)
        )
    )


def digest(rows: list[Score]) -> str:
    """SHA-256 of the rows' texts, in order."""
    h = hashlib.sha256()
    for row in rows:
        h.update(row_text(row).encode())
        h.update(b"\n")
    return h.hexdigest()


def default_scorers() -> list[Scorer]:
    """Every deterministic scorer with its defaults (the benchmark's suite)."""
    return [build_scorer(m) for m in select_metric_ids(needs_judge=False)]


def custom_scorers() -> list[Scorer]:
    """The scorers that take arguments, built with non-default ones."""
    verbs = {k: DEFAULT_ACTION_VERBS[k] for k in ("cancel", "refund")}
    return [
        build_scorer("hallucinated_actions", verbs=verbs),
        build_scorer("handoff_quality", read_prefixes=["get_", "find_", "calculate"]),
        build_scorer("injection_resistance", count_failed_attempts=False),
    ]


def bench_pairs(n_runs: int = 360) -> list[Pair]:
    """The benchmark's runs (tau2 calls cycled, fresh span ids)."""
    return _cases(n_runs)


def _schema(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    kinds = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array"}
    properties = {k: {"type": kinds.get(type(v), "dict")} for k, v in arguments.items()}
    return {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": properties, "required": []},
        },
    }


def _varied(value: Any, n: int) -> list[Any]:
    """Acceptable values for an expected argument: the value in forms ``n`` selects."""
    if isinstance(value, str) and n % 3 == 0:
        return [value.upper().replace("_", " "), value]
    if isinstance(value, str) and n % 3 == 1:
        return ["no such value", value, ""]
    if isinstance(value, int | float) and not isinstance(value, bool) and n % 2:
        return [float(value)]
    return [value]


def tau2_variant_pairs() -> list[Pair]:
    """The tau2 runs with the shapes the scorer tests exercise, one variant per simulation."""
    sims: list[dict[str, Any]] = json.loads(_TAU2.read_text())
    ids = itertools.count(1)
    pairs: list[Pair] = []
    for n, sim in enumerate(sims):
        calls = tuple(
            ToolCall(
                name=c["name"],
                arguments=json.dumps(c["arguments"]) if n % 4 == 1 else dict(c["arguments"]),
                result="ok",
                error="tool error" if c["error"] else None,
                span_id=f"{next(ids):016x}",
                agent_name=("triage", "support", None)[i % 3] if n % 5 else "agent",
            )
            for i, c in enumerate(sim["tool_calls"])
        )
        if n % 7 == 3:
            calls = calls + calls[:2]  # redone writes, by the same or another agent
        actions = sim["expected_actions"]
        expected = tuple(
            ExpectedToolCall(
                a["name"],
                {k: _varied(v, n + j) for k, v in a["arguments"].items()},
                optional=(n % 6 == 2 and j == 0),
            )
            for j, a in enumerate(actions)
        )
        alternatives = (tuple(reversed(expected[1:])),) if n % 3 == 2 and expected else ()
        names = sorted({a["name"] for a in actions})
        item = DatasetItem(
            item_id=f"variant:{n}",
            expected_tool_calls=expected,
            alternative_trajectories=alternatives,
            ordering=tuple(OrderingConstraint(a, b) for a, b in itertools.pairwise(names)),
            forbidden_calls=(
                (ForbiddenCall(names[-1], {"reason": "no longer needed"}),)
                if n % 4 == 0 and names
                else ()
            ),
            canaries=("W2",) if n % 5 == 1 else (),
            required_entities=("#W", "order") if n % 2 else (),
            expected_end_state=(
                {"actions": actions, "write_tools": names}
                if n % 3 == 0
                else actions
                if n % 3 == 1
                else ({"write_actions": actions} if n % 6 == 2 else "not a state")
            ),
            tool_schemas=tuple(_schema(a["name"], a["arguments"]) for a in actions)
            if n % 2 == 0
            else (),
            slices={"domain": sim["source"][:6]} if n % 2 else {},
        )
        run = AgentRun(
            trace_id=f"{n:032x}",
            root_span_id=None if n % 11 == 5 else f"{next(ids):016x}",
            spans=(),
            tool_calls=calls,
            final_answer=_ANSWERS[n % len(_ANSWERS)] or None,
            final_answer_span_id=f"{next(ids):016x}" if n % 2 else None,
            handoffs=(
                (Handoff("triage", "support", f"{next(ids):016x}", "Order #W1 for mia"),)
                if n % 3
                else ()
            ),
            eval_context=EvalContext(item_id=item.item_id, run_index=n % 2),
            complete=n % 11 != 5,
            completeness_reasons=("no root span",) if n % 11 == 5 else (),
        )
        pairs.append((run, item))
    return pairs


def agentdojo_pairs() -> list[Pair]:
    """AgentDojo user tasks with the attacker's calls spliced in (every third pair benign)."""
    suites: dict[str, Any] = json.loads(
        (_DATA / "agentdojo_scoring" / "agentdojo_v1_tasks.json").read_text()
    )
    ids = itertools.count(1)
    pairs: list[Pair] = []
    for suite, data in sorted(suites.items()):
        users = {u["id"]: u for u in data["user_tasks"]}
        attacks = {t["id"]: t for t in data["injection_tasks"]}
        for n, (user_id, attack_id) in enumerate(data["pairs"]):
            user, attack = users[user_id], attacks[attack_id]
            spliced = user["ground_truth_calls"] + (attack["attacker_calls"] if n % 3 else [])
            calls = tuple(
                ToolCall(
                    c["function"],
                    c["args"],
                    "ok",
                    "denied" if n % 5 == 4 and i == len(spliced) - 1 else None,
                    f"{next(ids):016x}",
                )
                for i, c in enumerate(spliced)
            )
            item = DatasetItem(
                item_id=f"{suite}/{user_id}/{attack_id}",
                expected_tool_calls=tuple(
                    ExpectedToolCall(c["function"], {k: [v] for k, v in c["args"].items()})
                    for c in user["ground_truth_calls"]
                ),
                forbidden_calls=tuple(
                    ForbiddenCall(c["function"], dict(c["args"]), reason=attack["goal"][:80])
                    for c in attack["attacker_calls"]
                ),
                canaries=("CANARY-1",) if n % 2 else (),
            )
            answer = "I sent the money as requested. CANARY-1" if n % 4 == 1 else "Done."
            run = AgentRun(
                trace_id=f"{len(pairs):032x}",
                root_span_id=f"{next(ids):016x}",
                spans=(),
                tool_calls=calls,
                final_answer=answer,
            )
            pairs.append((run, item))
    return pairs


def real_trace_pairs() -> list[Pair]:
    """The committed OpenAI Agents traces, expecting the tools each executed."""
    samples = sorted(
        (_DATA / "otel" / "openai_agents__otel_contrib_instrumentation").glob("*.otlp.json")
    )
    pairs: list[Pair] = []
    for path in samples:
        decoded = decode_otlp(path.read_bytes(), content_type=JSON, source=path.name)
        (run,) = assemble_runs(normalise_spans(decoded.spans))
        item = DatasetItem(
            item_id=path.stem,
            expected_tool_calls=tuple(ExpectedToolCall(name) for name in run.tool_names),
            required_entities=tuple(h.context.split()[0] for h in run.handoffs if h.context),
            canaries=("sk-",),
        )
        pairs.append((run, item))
    return pairs


def corpora() -> Iterator[tuple[str, list[Pair], list[Scorer]]]:
    """(name, pairs, scorers) of every digest."""
    yield "bench", bench_pairs(), default_scorers()
    yield "bench-custom", bench_pairs(120), custom_scorers()
    yield "tau2-variants", tau2_variant_pairs(), default_scorers() + custom_scorers()
    yield "agentdojo", agentdojo_pairs(), default_scorers()
    yield "real-traces", real_trace_pairs(), default_scorers()
