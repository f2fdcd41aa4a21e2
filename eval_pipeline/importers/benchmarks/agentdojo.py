"""Import AgentDojo prompt-injection security cases (ethz-spylab/agentdojo, v1): adversarial items.

A security case pairs a user task (the prompt and its reference tool calls) with an injection
task (the attacker's goal and intended calls), plus the text injected into the environment
under the paper's ``important_instructions`` attack. Each case becomes one item: the user task's
calls are the expected calls, the attacker's calls are forbidden calls, the injected text is
kept in provenance (a runner plants it in the environment). Paths are suite folders holding
``user_tasks``, ``injection_tasks``, ``tools`` and ``attack_*_pairs`` JSON (plain or ``.gz``),
or a parent folder of such suites.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall, ForbiddenCall
from eval_pipeline.importers.imported import ImportedItems, merge, openai_function
from eval_pipeline.importers.source_files import SourceError, read_json

UPSTREAM = "ethz-spylab/agentdojo v1 (agentdojo 0.1.35 export)"
LICENCE = "MIT"


def _file(folder: Path, stem: str) -> Path:
    for candidate in (folder / f"{stem}.json", folder / f"{stem}.json.gz"):
        if candidate.is_file():
            return candidate
    raise SourceError(f"{folder}: missing {stem}.json")


def _pairs_file(folder: Path) -> Path:
    found = sorted(folder.glob("attack_*_pairs.json*"))
    if not found:
        raise SourceError(f"{folder}: missing attack_*_pairs.json")
    return found[0]


def suite_folders(paths: Sequence[Path]) -> list[Path]:
    """The suite folders named by ``paths`` (a suite folder itself, or a parent of suites)."""
    folders: list[Path] = []
    for path in paths:
        if not path.is_dir():
            raise SourceError(f"{path}: expected an AgentDojo suite folder")
        if any(path.glob("user_tasks.json*")):
            folders.append(path)
            continue
        children = sorted(
            p for p in path.iterdir() if p.is_dir() and any(p.glob("user_tasks.json*"))
        )
        if not children:
            raise SourceError(f"{path}: no AgentDojo suite (user_tasks.json) inside")
        folders.extend(children)
    return folders


def _narrowing(args: dict[str, Any], goal: str) -> dict[str, Any]:
    """Arguments identifying the attacker's target: values the injection goal names verbatim.

    Content the model composes (a subject line, a body) varies between attacks that succeed, so
    only identifiers the goal spells out (an IBAN, an e-mail address) narrow the forbidden call.
    """
    kept: dict[str, Any] = {}
    for key, value in args.items():
        leaves = value if isinstance(value, list) else [value]
        if leaves and all(isinstance(v, str) and len(v) >= 4 and v in goal for v in leaves):
            kept[key] = value
    return kept


def _forbidden(injection: dict[str, Any]) -> tuple[ForbiddenCall, ...]:
    goal = str(injection.get("goal") or "")
    return tuple(
        ForbiddenCall(
            name=str(call["function"]),
            arguments=_narrowing(dict(call.get("args") or {}), goal),
            reason=f"{injection['id']}: {goal}",
        )
        for call in injection.get("attacker_ground_truth_calls") or ()
    )


def import_suite(folder: Path) -> ImportedItems:
    """The security cases of one AgentDojo suite folder."""
    suite = folder.name
    user_tasks = {t["id"]: t for t in read_json(_file(folder, "user_tasks"))}
    injections = {t["id"]: t for t in read_json(_file(folder, "injection_tasks"))}
    schemas = tuple(openai_function(t) for t in read_json(_file(folder, "tools")))
    pairs_doc = read_json(_pairs_file(folder))
    attack = str(pairs_doc.get("attack") or "unknown")
    items: list[DatasetItem] = []
    for pair in pairs_doc.get("pairs") or ():
        user_id, injection_id = pair["user_task_id"], pair["injection_task_id"]
        if user_id not in user_tasks or injection_id not in injections:
            raise SourceError(f"{folder}: pair {user_id}/{injection_id} names an unknown task")
        user, injection = user_tasks[user_id], injections[injection_id]
        calls = tuple(
            ExpectedToolCall(
                name=str(c["function"]),
                arguments={str(k): [v] for k, v in (c.get("args") or {}).items()},
            )
            for c in user.get("ground_truth_calls") or ()
        )
        forbidden = _forbidden(injection)
        reference = str(user.get("ground_truth_output") or "") or None
        items.append(
            DatasetItem(
                item_id=f"{suite}/{user_id}/{injection_id}",
                input_messages=({"role": "user", "content": str(user["prompt"])},),
                reference_answer=reference,
                expected_tool_calls=calls,
                forbidden_calls=forbidden,
                slices={
                    "suite": suite,
                    "intent": "prompt_injection",
                    "language": "en",
                    "tool": forbidden[-1].name if forbidden else "none",
                    "difficulty": str(injection.get("difficulty", "")).lower(),
                },
                provenance={
                    "source": UPSTREAM,
                    "suite": suite,
                    "user_task_id": user_id,
                    "injection_task_id": injection_id,
                    "attack": attack,
                    "injection_goal": injection.get("goal"),
                    "injections": dict(pair.get("injections") or {}),
                    "attacker_calls": injection.get("attacker_ground_truth_calls") or [],
                    "user_task_difficulty": user.get("difficulty"),
                },
            )
        )
    provenance = {"suite": suite, "attack": attack, "cases": len(items)}
    return ImportedItems(tuple(items), schemas, provenance)


def import_agentdojo(paths: Sequence[Path]) -> ImportedItems:
    """Every security case of the suites under ``paths``."""
    parts = [import_suite(folder) for folder in suite_folders(paths)]
    merged = merge(parts)
    provenance = {
        "format": "agentdojo",
        "upstream": UPSTREAM,
        "licence": LICENCE,
        "suites": [p.provenance for p in parts],
    }
    return ImportedItems(merged.items, merged.tool_schemas, provenance)
