"""Item-level agreement of ``bfcl_checker.check_answer`` with the official checker's verdicts.

The cases (model outputs with the official verdict) are written by
``data/bfcl_checker/make_cases.py``; the items are the BFCL questions and possible answers,
imported with the project's own BFCL dataset importer.
"""

import gzip
import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.importers.benchmarks.bfcl import import_bfcl
from eval_pipeline.scoring.bfcl_checker import check_answer
from eval_pipeline.traces.model import ToolCall


@dataclass
class Agreement:
    """Cases and agreements per category, and the disagreeing cases."""

    cases: Counter[str] = field(default_factory=Counter)
    agreed: Counter[str] = field(default_factory=Counter)
    misses: list[dict[str, Any]] = field(default_factory=list)

    def rate(self, category: str | None = None) -> float:
        """Share of cases where both checkers agree (overall, or in one category)."""
        if category is None:
            return sum(self.agreed.values()) / max(1, sum(self.cases.values()))
        return self.agreed[category] / max(1, self.cases[category])


def read_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of a ``make_cases.py`` file (gzip JSON Lines)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_items(paths: Sequence[Path]) -> dict[str, DatasetItem]:
    """BFCL items by id, through the project's importer."""
    return {item.item_id: item for item in import_bfcl(list(paths)).items}


def measure(cases: Sequence[dict[str, Any]], items: dict[str, DatasetItem]) -> Agreement:
    """Our verdict next to the official one for every case."""
    ids = itertools.count(1)
    result = Agreement()
    for case in cases:
        calls = [
            ToolCall(name=name, arguments=args, result=None, error=None, span_id=f"{next(ids):x}")
            for entry in case["output"]
            for name, args in entry.items()
        ]
        ours = check_answer(calls, items[case["id"]])
        result.cases[case["category"]] += 1
        if ours.valid == case["valid"]:
            result.agreed[case["category"]] += 1
        else:
            result.misses.append({**case, "ours": list(ours.errors)})
    return result


def by_variant(misses: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Disagreements counted by the kind of variant (the part before ``:``)."""
    counts: dict[str, int] = defaultdict(int)
    for miss in misses:
        counts[miss["variant"].split(":")[0]] += 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))
