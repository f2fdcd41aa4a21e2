"""tau2-bench (sierra-research/tau2-bench), read in one place: its task lists and its results.

tau2-bench writes two kinds of JSON document, and both imports read them here:

- **tasks** (a JSON list). A task carries a user scenario (reason for call, known and unknown
  information, behaviour instructions) and evaluation criteria: expected ``actions`` with exact
  arguments (``compare_args`` narrows which arguments count), ``communicate_info`` (facts the
  agent must tell the user: required outputs) and ``nl_assertions`` (judged statements). The
  dataset import (``datasets import --format tau2``) makes one item per task, id
  ``tau2-<domain>-<id>`` (``import_tasks``). tau2 ships no tool schemas with its tasks: pass a
  tau-bench v1 ``tools_<domain>.json`` among the paths to attach them.
- **results** (``info``: agent implementation and model, environment/domain; ``tasks``;
  ``simulations``). Each simulation has ``task_id``, ``trial``, ``messages`` (with ISO
  timestamps and per-message token usage) and ``reward_info.reward``. The trace import
  (``ingest --format tau2``) makes one run per simulation and imports its reward as a
  ``task_success`` score (``read_tau2``). Eval context of a run: build (given, else
  ``tau2:<agent model>``), dataset ``tau2-bench/<domain>``, item = task id, run index = trial.
"""

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.importers.benchmarks import tau_actions
from eval_pipeline.importers.benchmarks.taubench import tool_schemas
from eval_pipeline.importers.conversation import Turn, conversation_spans, reward_score
from eval_pipeline.importers.imported import ImportedItems
from eval_pipeline.importers.report import Recorded
from eval_pipeline.importers.source_files import SourceError, read_json
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.decode.errors import FieldError
from eval_pipeline.traces.model import EvalContext, Span
from eval_pipeline.traces.semconv import DIALECT_TAU2

UPSTREAM = "sierra-research/tau2-bench@a2c0247"
LICENCE = "MIT"
SCORER_ID = "imported:tau2"
METRIC_ID = "task_success"


def is_tau2(document: Any) -> bool:
    """True for a parsed tau2-bench results document."""
    return isinstance(document, dict) and "simulations" in document and "info" in document


# Tasks -> dataset items.


def _user_message(instructions: dict[str, Any]) -> str:
    parts = [
        instructions.get("known_info"),
        instructions.get("reason_for_call"),
        instructions.get("unknown_info"),
        instructions.get("task_instructions"),
    ]
    return "\n\n".join(str(p).strip() for p in parts if p and str(p).strip() not in ("", "."))


def _call(action: dict[str, Any]) -> ExpectedToolCall:
    call = tau_actions.expected_call(str(action["name"]), action.get("arguments"))
    compare = action.get("compare_args")
    if compare is None:
        return call
    kept = {k: v for k, v in call.arguments.items() if k in set(compare)}
    return ExpectedToolCall(name=call.name, arguments=kept, optional=call.optional)


def task_item(task: dict[str, Any]) -> DatasetItem:
    """One tau2 task as a dataset item."""
    try:
        instructions = task["user_scenario"]["instructions"]
        criteria = task.get("evaluation_criteria") or {}
        task_id = str(task["id"])
    except (KeyError, TypeError) as exc:
        raise SourceError(f"tau2 task lacks {exc}") from exc
    domain = str(instructions.get("domain") or "unknown")
    raw_actions = list(criteria.get("actions") or [])
    actions = [(str(a["name"]), dict(a.get("arguments") or {})) for a in raw_actions]
    description = task.get("description") or {}
    return DatasetItem(
        item_id=f"tau2-{domain}-{task_id}",
        input_messages=({"role": "user", "content": _user_message(instructions)},),
        expected_tool_calls=tuple(_call(a) for a in raw_actions),
        ordering=tau_actions.ordering(actions),
        required_outputs=tuple(str(i) for i in criteria.get("communicate_info") or ()),
        required_entities=tau_actions.entities(actions),
        expected_end_state=tau_actions.end_state(actions),
        assertions=tuple(str(a) for a in criteria.get("nl_assertions") or ()),
        slices=tau_actions.slices(domain, actions),
        provenance={
            "source": UPSTREAM,
            "task_id": task_id,
            "reward_basis": list(criteria.get("reward_basis") or ()),
            "purpose": description.get("purpose"),
            "action_ids": [a.get("action_id") for a in raw_actions],
            "input_is": "user-simulator instructions",
        },
    )


def import_tasks(
    paths: Sequence[Path], make_item: Callable[[dict[str, Any]], DatasetItem] = task_item
) -> ImportedItems:
    """Items of every tau2 tasks file in ``paths`` (tool files among them give the schemas).

    ``make_item`` makes one item of a task (``tau2_conversation.multi_turn_item`` for the
    multi-turn import).
    """
    items: list[DatasetItem] = []
    schemas: list[dict[str, Any]] = []
    files: list[dict[str, Any]] = []
    for path in paths:
        document = read_json(path)
        if (tools := tool_schemas(document)) is not None:
            schemas.extend(tools)
            files.append({"file": path.name, "role": "tool schemas (tau-bench v1)"})
            continue
        if not isinstance(document, list):
            raise SourceError(f"{path}: expected a JSON list of tau2 tasks")
        before = len(items)
        items.extend(make_item(task) for task in document)
        files.append({"file": path.name, "tasks": len(items) - before})
    if not items:
        raise SourceError("no tau2 tasks among the paths")
    provenance = {"format": "tau2", "upstream": UPSTREAM, "licence": LICENCE, "files": files}
    return ImportedItems(tuple(items), tuple(schemas), provenance)


# Results -> runs and their recorded rewards.


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
