"""Regenerate ``bfcl_v4_sample.jsonl`` from BFCL v4 question/possible-answer files (by hand).

Usage: python extract.py /path/to/bfcl > bfcl_v4_sample.jsonl
Keeps the first 40 simple_python, 15 multiple, 15 parallel and 10 parallel_multiple items:
id, category, the function docs and the ground truth (every acceptable value per parameter).
"""

import json
import sys
from pathlib import Path

TAKE = {"simple_python": 40, "multiple": 15, "parallel": 15, "parallel_multiple": 10}


def main(root: Path) -> None:
    """Write the fixture to stdout."""
    for category, count in TAKE.items():
        questions = (root / "questions" / f"BFCL_v4_{category}.jsonl").read_text().splitlines()
        answers = (root / "possible_answer" / f"BFCL_v4_{category}.jsonl").read_text().splitlines()
        truth = {a["id"]: a["ground_truth"] for a in map(json.loads, answers)}
        for question in list(map(json.loads, questions))[:count]:
            row = {
                "id": question["id"],
                "category": category,
                "question": question["question"][0][-1]["content"],
                "function": question["function"],
                "ground_truth": truth[question["id"]],
            }
            sys.stdout.write(json.dumps(row, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
