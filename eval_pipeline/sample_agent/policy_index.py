"""Refund-policy retrieval: a small lexical index over policy passages (current or stale).

The current index holds tau-bench's retail policy split into passages; the stale index holds
an outdated policy written for the stale-retriever defect. Ranking is TF-IDF cosine over word
tokens: deterministic, dependency-free and good enough for a dozen passages.
"""

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from eval_pipeline.sample_agent.retail_db import DATA_DIR

INDEXES = {"current": "policy_current.json", "stale": "policy_stale.json"}
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Passage:
    """One retrieved policy passage with its score."""

    doc_id: str
    title: str
    content: str
    score: float


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class PolicyIndex:
    """A TF-IDF index over one policy version's passages."""

    def __init__(self, name: str, documents: list[dict[str, str]]) -> None:
        self.name = name
        self.documents = documents
        counts = [Counter(_tokens(d["title"] + " " + d["content"])) for d in documents]
        df = Counter(term for c in counts for term in c)
        n = len(documents)
        self._idf = {term: math.log((1 + n) / (1 + k)) + 1 for term, k in df.items()}
        self._vectors = [self._vector(c) for c in counts]

    def _vector(self, counts: Counter[str]) -> dict[str, float]:
        weights = {t: c * self._idf.get(t, 0.0) for t, c in counts.items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {t: w / norm for t, w in weights.items()}

    def search(self, query: str, k: int = 3) -> list[Passage]:
        """The ``k`` best passages for ``query`` (ties broken by index order)."""
        q = self._vector(Counter(_tokens(query)))
        scored = [
            (sum(w * vec.get(t, 0.0) for t, w in q.items()), i)
            for i, vec in enumerate(self._vectors)
        ]
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return [
            Passage(
                self.documents[i]["id"],
                self.documents[i]["title"],
                self.documents[i]["content"],
                round(score, 4),
            )
            for score, i in scored[:k]
        ]


@lru_cache(maxsize=len(INDEXES))
def policy_index(version: str) -> PolicyIndex:
    """The ``current`` or ``stale`` policy index."""
    if version not in INDEXES:
        raise ValueError(f"unknown policy index {version!r}; expected one of {sorted(INDEXES)}")
    data = json.loads((DATA_DIR / INDEXES[version]).read_text(encoding="utf-8"))
    return PolicyIndex(data["index"], data["documents"])
