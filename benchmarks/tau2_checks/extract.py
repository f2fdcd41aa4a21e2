"""Regenerate ``tau2_action_checks.json`` from a tau2-bench results folder (run by hand, once).

Usage: python extract.py /path/to/tau2_bench/trajectories > tau2_action_checks.json
Keeps, per simulation: task id, the task's expected actions, every tool call made (requestor,
name, arguments, whether the tool answered with an error) in order, the benchmark's recorded
per-action checks, and the reward. Tool results and chat text are dropped.
"""

import json
import sys
from pathlib import Path


def main(folder: Path) -> None:
    """Write the fixture to stdout."""
    out = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        tasks = {t["id"]: t for t in data["tasks"]}
        for sim in data["simulations"]:
            errors = {m["id"]: bool(m.get("error")) for m in sim["messages"] if m["role"] == "tool"}
            calls = [
                {
                    "id": c["id"],
                    "requestor": c.get("requestor", m["role"]),
                    "name": c["name"],
                    "arguments": c["arguments"],
                    "error": errors.get(c["id"], False),
                }
                for m in sim["messages"]
                if m.get("tool_calls")
                for c in m["tool_calls"]
            ]
            info = sim["reward_info"]
            out.append(
                {
                    "source": path.name,
                    "task_id": sim["task_id"],
                    "expected_actions": tasks[sim["task_id"]]["evaluation_criteria"]["actions"]
                    or [],
                    "tool_calls": calls,
                    "action_checks": [
                        {"action_id": c["action"]["action_id"], "action_match": c["action_match"]}
                        for c in info.get("action_checks") or []
                    ],
                    "reward": info["reward"],
                    "db_match": (info.get("db_check") or {}).get("db_match"),
                }
            )
    json.dump(out, sys.stdout, indent=0, sort_keys=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
