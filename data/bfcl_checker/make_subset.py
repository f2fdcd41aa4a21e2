"""Cut the committed subset out of a full ``make_cases.py`` run (development tool).

    python data/bfcl_checker/make_subset.py SHARED_BFCL_DIR ALL_CASES.jsonl.gz data/bfcl_checker

Keeps the first 30 questions of each category and the questions listed in ``RULE_ITEMS``
(where a rule of the checker decides some variant: element types inside arrays, an empty value
for an omittable parameter, greedy pairing of parallel calls, a function without parameters;
found by comparing this project's checker before issue 17 with the official one), and writes
their questions, possible answers and cases.
"""

import gzip
import json
import sys
from pathlib import Path

FIRST = 30
RULE_ITEMS = frozenset(
    {
        "live_simple_116-72-0",
        "live_simple_247-129-0",
        "live_simple_250-132-0",
        "live_simple_253-135-0",
        "live_simple_27-7-0",
        "live_simple_28-7-1",
        "live_simple_29-7-2",
        "live_simple_66-30-0",
        "live_simple_78-39-0",
        "live_simple_86-47-0",
        "multiple_125",
        "multiple_126",
        "multiple_162",
        "multiple_3",
        "multiple_47",
        "parallel_129",
        "parallel_132",
        "parallel_137",
        "parallel_150",
        "parallel_164",
        "parallel_165",
        "parallel_178",
        "parallel_44",
        "parallel_52",
        "parallel_multiple_0",
        "parallel_multiple_117",
        "parallel_multiple_126",
        "parallel_multiple_145",
        "parallel_multiple_151",
        "parallel_multiple_156",
        "parallel_multiple_157",
        "parallel_multiple_162",
        "parallel_multiple_165",
        "parallel_multiple_184",
        "parallel_multiple_20",
        "parallel_multiple_21",
        "parallel_multiple_41",
        "parallel_multiple_42",
        "parallel_multiple_43",
        "parallel_multiple_54",
        "parallel_multiple_61",
        "parallel_multiple_67",
        "parallel_multiple_77",
        "parallel_multiple_94",
        "parallel_multiple_95",
        "simple_python_103",
        "simple_python_118",
        "simple_python_119",
        "simple_python_120",
        "simple_python_124",
        "simple_python_127",
        "simple_python_13",
        "simple_python_130",
        "simple_python_173",
        "simple_python_271",
        "simple_python_370",
        "simple_python_373",
        "simple_python_375",
        "simple_python_79",
        "simple_python_82",
        "simple_python_87",
    }
)


def _write(path: Path, lines: list[str]) -> None:
    with gzip.GzipFile(path, "wb", mtime=0) as handle:
        handle.write("".join(line.rstrip("\n") + "\n" for line in lines).encode())


def main(shared: str, all_cases: str, out: str) -> None:
    """Write the subset's three files into ``out``."""
    keep: set[str] = set()
    for kind in ("questions", "possible_answer"):
        lines = []
        for path in sorted(Path(shared, kind).glob("BFCL_v4_*.jsonl")):
            rows = path.read_text().splitlines()
            for n, line in enumerate(rows):
                row_id = json.loads(line)["id"]
                if n < FIRST or row_id in RULE_ITEMS:
                    lines.append(line)
                    keep.add(row_id)
        _write(Path(out, f"bfcl_v4_{kind}.jsonl.gz"), lines)
    with gzip.open(all_cases, "rt", encoding="utf-8") as handle:
        cases = [line for line in handle if json.loads(line)["id"] in keep]
    _write(Path(out, "official_verdicts.jsonl.gz"), cases)
    print(f"{len(keep)} questions, {len(cases)} cases -> {out}")  # noqa: T201


if __name__ == "__main__":
    main(*sys.argv[1:])
