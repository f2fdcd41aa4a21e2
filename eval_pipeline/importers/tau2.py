"""tau2-bench results files -> runs (one per simulation) and imported ``task_success`` scores.

A results file holds ``info`` (agent implementation and model, environment/domain), ``tasks``
and ``simulations``; each simulation has ``task_id``, ``trial``, ``messages`` (with ISO
timestamps and per-message token usage) and ``reward_info.reward``. Eval context of a run:
build (given, else ``tau2:<agent model>``), dataset ``tau2-bench/<domain>``, item = task id,
run index = trial.
"""

from datetime import datetime
from pathlib import Path
from typing import Any

from eval_pipeline.importers.conversation import Turn, conversation_spans, reward_score
from eval_pipeline.importers.report import Recorded
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.decode.errors import FieldError
from eval_pipeline.traces.model import EvalContext, Span
from eval_pipeline.traces.semconv import DIALECT_TAU2

SCORER_ID = "imported:tau2"
METRIC_ID = "task_success"


def is_tau2(document: Any) -> bool:
    """True for a parsed tau2-bench results document."""
    return isinstance(document, dict) and "simulations" in document and "info" in document


def _ns(stamp: Any, fallback: int) -> int:
    if not isinstance(stamp, str):
        return fallback
    try:
        return int(datetime.fromisoformat(stamp).timestamp() * 1e9)
    except ValueError:
        return fallback


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _turns(messages: list[Any], where: str) -> list[Turn]:
    turns = []
    last = 0
    for index, raw in enumerate(messages):
        if not isinstance(raw, dict) or "role" not in raw:
            raise FieldError(f"{where}.messages[{index}]", "must be an object with a role")
        last = _ns(raw.get("timestamp"), last + 1)
        usage: dict[str, Any] = raw["usage"] if isinstance(raw.get("usage"), dict) else {}
        turns.append(
            Turn(
                raw=raw,
                time_ns=last,
                input_tokens=_int(usage.get("prompt_tokens")),
                output_tokens=_int(usage.get("completion_tokens")),
                model_call=raw.get("role") == "assistant" and bool(raw.get("usage")),
            )
        )
    return turns


def _identity(document: dict[str, Any], build: str | None) -> tuple[str, str, str]:
    info: dict[str, Any] = document.get("info") or {}
    agent: dict[str, Any] = info.get("agent_info") or {}
    environment: dict[str, Any] = info.get("environment_info") or {}
    model = str(agent.get("llm") or "unknown")
    domain = str(environment.get("domain_name") or "unknown")
    return build or f"tau2:{model}", f"tau2-bench/{domain}", model


def simulations(document: Any, source: str) -> list[dict[str, Any]]:
    """The simulations of a results document, validated enough to import."""
    if not is_tau2(document):
        raise FieldError("$", "not a tau2-bench results file (needs info and simulations)")
    sims = document["simulations"]
    if not isinstance(sims, list):
        raise FieldError("simulations", "must be a list")
    for index, sim in enumerate(sims):
        if (
            not isinstance(sim, dict)
            or "task_id" not in sim
            or not isinstance(sim.get("messages"), list)
        ):
            raise FieldError(f"simulations[{index}]", "needs task_id and a messages list")
    return sims


def read_tau2(document: Any, *, source: str, build: str | None = None) -> Recorded:
    """Spans of every simulation in a tau2-bench results document, and their rewards.

    Each simulation's recorded reward becomes a ``task_success`` score row pointing at the
    simulation's root span.
    """
    build_id, dataset, model = _identity(document, build)
    agent = str(
        ((document.get("info") or {}).get("agent_info") or {}).get("implementation") or "tau2_agent"
    )
    spans: list[Span] = []
    scores: list[Score] = []
    for index, sim in enumerate(simulations(document, source)):
        trial = int(sim.get("trial") or 0)
        context = EvalContext(
            build_id=build_id, dataset=dataset, item_id=str(sim["task_id"]), run_index=trial
        )
        reward = (sim.get("reward_info") or {}).get("reward")
        run = conversation_spans(
            key=f"tau2:{Path(source).name}:{sim.get('id') or index}:{build_id}",
            agent_name=agent,
            model=model,
            turns=_turns(sim["messages"], f"simulations[{index}]"),
            context=context,
            dialect=DIALECT_TAU2,
            root_attributes={
                "tau2.simulation.id": str(sim.get("id")),
                "tau2.termination_reason": str(sim.get("termination_reason")),
                "tau2.reward": reward,
            },
        )
        spans.extend(run)
        scores.append(
            reward_score(
                reward,
                benchmark="tau2-bench",
                metric_id=METRIC_ID,
                scorer_id=SCORER_ID,
                root=run[0],
                build=build_id,
                item_id=str(sim["task_id"]),
                run_index=trial,
                evidence={"source": source, "simulation_id": str(sim.get("id"))},
            )
        )
    return Recorded(spans, scores)


def import_tau2(document: Any, *, source: str, build: str | None = None) -> list[Span]:
    """Spans of every simulation in a tau2-bench results document (``read_tau2``)."""
    return read_tau2(document, source=source, build=build).spans


def imported_scores(document: Any, *, source: str, build: str | None = None) -> list[Score]:
    """The recorded reward of each simulation as a ``task_success`` score row (``read_tau2``)."""
    return read_tau2(document, source=source, build=build).scores
