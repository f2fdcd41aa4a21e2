"""Regenerate ``halueval_general_600.labels.jsonl`` from HaluEval's ``general_data.jsonl``.

Usage: python extract_halueval.py /path/to/general_data.jsonl > halueval_general_600.labels.jsonl
A seeded (``random.Random(0)``) sample of 300 items labelled hallucinated and 300 not, kept in
file order, written in the ``eval-pipeline calibrate`` labels format: ``label`` is ``pass`` when
the human annotators found no hallucination and ``fail`` when they did.
"""

import json
import random
import sys
from pathlib import Path

PER_CLASS = 300


def _length_bucket(answer: str) -> str:
    words = len(answer.split())
    return "short" if words < 50 else "medium" if words < 150 else "long"


def main(source: Path) -> None:
    """Write the labels file to stdout."""
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    for line, row in enumerate(rows, start=1):
        row["_line"] = line
    rng = random.Random(0)
    yes = [r for r in rows if r["hallucination"] == "yes"]
    no = [r for r in rows if r["hallucination"] == "no"]
    picked = sorted(
        rng.sample(yes, PER_CLASS) + rng.sample(no, PER_CLASS), key=lambda r: r["_line"]
    )
    for row in picked:
        record = {
            # Three upstream rows have an ID of "" or "ID"; their line number stands in.
            "item_id": "halueval-general-"
            + (row["ID"] if row["ID"].isdigit() else f"line{row['_line']}"),
            "label": "fail" if row["hallucination"] == "yes" else "pass",
            "question": row["user_query"],
            "answer": row["chatgpt_response"],
            "answer_length": _length_bucket(row["chatgpt_response"]),
            "source_line": row["_line"],
            "hallucination_spans": row["hallucination_spans"],
        }
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
