"""Import tau2-bench tasks (sierra-research/tau2-bench): one item per task.

A tau2 task carries a user scenario (reason for call, known and unknown information,
behaviour instructions) and evaluation criteria: expected ``actions`` with exact arguments
(``compare_args`` narrows which arguments count), ``communicate_info`` (facts the agent must
tell the user: required outputs) and ``nl_assertions`` (judged statements). tau2 ships no tool
schemas with its tasks: pass a tau-bench v1 ``tools_<domain>.json`` among the paths to attach
them. Item ids are ``tau2-<domain>-<id>``.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.importers import tau_actions
from eval_pipeline.datasets.importers.imported import ImportedItems, openai_function
from eval_pipeline.datasets.importers.source_files import SourceError, read_json
from eval_pipeline.datasets.importers.taubench import is_tool_file
from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall

UPSTREAM = "sierra-research/tau2-bench@a2c0247"
LICENCE = "MIT"


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
        slices={
            "domain": domain,
            "intent": tau_actions.intent(actions),
            "language": "en",
            "tool": tau_actions.primary_tool(actions),
        },
        provenance={
            "source": UPSTREAM,
            "task_id": task_id,
            "reward_basis": list(criteria.get("reward_basis") or ()),
            "purpose": description.get("purpose"),
            "action_ids": [a.get("action_id") for a in raw_actions],
            "input_is": "user-simulator instructions",
        },
    )


def import_tau2(paths: Sequence[Path]) -> ImportedItems:
    """Items of every tau2 tasks file in ``paths`` (tool files among them give the schemas)."""
    items: list[DatasetItem] = []
    schemas: list[dict[str, Any]] = []
    files: list[dict[str, Any]] = []
    for path in paths:
        document = read_json(path)
        if is_tool_file(document):
            schemas.extend(openai_function(tool) for tool in document["tools"])
            files.append({"file": path.name, "role": "tool schemas (tau-bench v1)"})
            continue
        if not isinstance(document, list):
            raise SourceError(f"{path}: expected a JSON list of tau2 tasks")
        before = len(items)
        items.extend(task_item(task) for task in document)
        files.append({"file": path.name, "tasks": len(items) - before})
    if not items:
        raise SourceError("no tau2 tasks among the paths")
    provenance = {"format": "tau2", "upstream": UPSTREAM, "licence": LICENCE, "files": files}
    return ImportedItems(tuple(items), tuple(schemas), provenance)
