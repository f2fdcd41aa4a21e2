"""Regenerate ``agentdojo_v1_tasks.json`` from an AgentDojo v1 export (run by hand, once).

Usage: python extract.py /path/to/injection/agentdojo/v1 > agentdojo_v1_tasks.json
Keeps, per suite: user tasks (id, prompt, ground-truth calls), injection tasks (id, goal,
attacker ground-truth calls) and the (user task, injection task) pairs of the main attack.
"""

import json
import sys
from pathlib import Path


def main(root: Path) -> None:
    """Write the fixture to stdout."""
    out = {}
    for suite in sorted(p.name for p in root.iterdir() if p.is_dir()):
        folder = root / suite
        users = json.loads((folder / "user_tasks.json").read_text())
        injections = json.loads((folder / "injection_tasks.json").read_text())
        pairs = json.loads((folder / "attack_important_instructions_pairs.json").read_text())
        out[suite] = {
            "user_tasks": [
                {
                    "id": u["id"],
                    "prompt": u["prompt"].strip(),
                    "ground_truth_calls": u["ground_truth_calls"],
                }
                for u in users
            ],
            "injection_tasks": [
                {
                    "id": t["id"],
                    "goal": t["goal"],
                    "attacker_calls": t["attacker_ground_truth_calls"],
                }
                for t in injections
            ],
            "pairs": [[p["user_task_id"], p["injection_task_id"]] for p in pairs["pairs"]],
        }
    json.dump(out, sys.stdout, indent=0, sort_keys=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
