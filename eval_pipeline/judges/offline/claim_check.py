"""Claim-level support check: each claim against evidence units, by embeddings and hard conflicts.

For each claim the closest evidence units (cosine of MiniLM embeddings) are found. Then, in
order: a hard conflict (a fact absent from evidence that states facts, an opposed polarity
term, a negation mismatch with a near-identical unit) makes it ``contradicted``; a name the
evidence never mentions (``names``) makes it ``unsupported``; a denied term
whose opposite the evidence states ("not shipped" for ``pending``) makes it ``supported``;
enough similarity plus content-word coverage makes it ``supported``, unless only the claim is
negated (then ``contradicted``: the evidence states what the claim denies); anything else is
``unsupported``. Deterministic, explainable, and weak on paraphrase: calibration measures how
weak.
"""

from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np

from eval_pipeline.judges.offline.claims import coverage, evidence_units
from eval_pipeline.judges.offline.conflicts import (
    fact_conflicts,
    facts,
    is_negated,
    negated_polarity_agrees,
    polarity_conflict,
)
from eval_pipeline.judges.offline.names import mentioned_words, unmentioned_names

SUPPORT_SIMILARITY = 0.5
SUPPORT_COVERAGE = 0.5
LOOSE_SIMILARITY = 0.35
LOOSE_COVERAGE = 0.8
NEGATION_SIMILARITY = 0.6
TOP_UNITS = 3

PARAMETERS = {
    "support_similarity": SUPPORT_SIMILARITY,
    "support_coverage": SUPPORT_COVERAGE,
    "loose_similarity": LOOSE_SIMILARITY,
    "loose_coverage": LOOSE_COVERAGE,
    "negation_similarity": NEGATION_SIMILARITY,
    "top_units": TOP_UNITS,
}
"""The thresholds, recorded in the offline judge's fingerprint."""


@dataclass(frozen=True)
class ClaimVerdict:
    """The verdict on one claim, with the evidence unit it was decided against."""

    claim: str
    verdict: str  # supported | unsupported | contradicted
    evidence: str
    similarity: float
    why: str

    def as_dict(self) -> dict[str, object]:
        """JSON-safe form (matches the faithfulness rubric's claim items, plus extras)."""
        return {
            "claim": self.claim,
            "verdict": self.verdict,
            "evidence": self.evidence,
            "similarity": round(self.similarity, 4),
            "why": self.why,
        }


@dataclass(frozen=True)
class ClaimCheck:
    """Claims to check against the evidence units of some contexts, before any embedding.

    ``texts`` are what the embedder must embed (claims, then units); ``verdicts`` decides
    from their vectors. Splitting the two lets a judge embed the texts of many checks in
    one batch.
    """

    claims: tuple[str, ...]
    units: tuple[str, ...]
    evidence_facts: frozenset[str]
    known_facts: frozenset[str]
    allowed_text: str
    mentioned: frozenset[str] = frozenset()

    @property
    def texts(self) -> list[str]:
        """The texts to embed, claims first (none when there is no claim)."""
        return [*self.claims, *self.units] if self.claims else []

    def verdicts(self, vectors: np.ndarray) -> list[ClaimVerdict]:
        """Verdicts from the vectors of ``texts`` (same order)."""
        if not self.claims:
            return []
        n = len(self.claims)
        sims = vectors[:n] @ vectors[n:].T
        verdicts = []
        for i, claim in enumerate(self.claims):
            order = np.argsort(-sims[i])[:TOP_UNITS]
            best, best_sim = self.units[int(order[0])], float(sims[i, order[0]])
            near = " \n".join(self.units[int(j)] for j in order)
            verdicts.append(
                _decide(
                    claim,
                    best,
                    best_sim,
                    near,
                    self.evidence_facts,
                    self.known_facts,
                    self.allowed_text,
                    self.mentioned,
                )
            )
        return verdicts


def claim_check(claims: list[str], contexts: list[str], *, allowed_text: str = "") -> ClaimCheck:
    """The check of ``claims`` against ``contexts``.

    ``allowed_text`` (typically the user's question) may be restated without evidence: its
    facts and words count as known.
    """
    if not claims:
        return ClaimCheck((), (), frozenset(), frozenset(), allowed_text)
    units: list[str] = []
    for context in contexts:
        units.extend(evidence_units(context))
    evidence_facts: set[str] = set()
    for context in contexts:
        evidence_facts |= facts(context)
    return ClaimCheck(
        tuple(claims),
        tuple(units),
        frozenset(evidence_facts),
        frozenset(facts(allowed_text)),
        allowed_text,
        mentioned_words([*contexts, allowed_text]),
    )


def _decide(
    claim: str,
    best: str,
    best_sim: float,
    near: str,
    evidence_facts: AbstractSet[str],
    known_facts: AbstractSet[str],
    allowed_text: str,
    mentioned: frozenset[str],
) -> ClaimVerdict:
    missing = [f for f in fact_conflicts(claim, evidence_facts) if f not in known_facts]
    if missing:
        return ClaimVerdict(
            claim,
            "contradicted",
            best,
            best_sim,
            f"states {', '.join(missing)}, which the evidence does not",
        )
    polarity = polarity_conflict(claim, near)
    if polarity is not None:
        return ClaimVerdict(
            claim,
            "contradicted",
            best,
            best_sim,
            f"says {polarity[0]!r} where the evidence says {polarity[1]!r}",
        )
    unnamed = unmentioned_names(claim, mentioned)
    if unnamed:
        return ClaimVerdict(
            claim,
            "unsupported",
            best,
            best_sim,
            f"names {', '.join(unnamed)}, which the evidence never mentions",
        )
    cover = coverage(claim, f"{near}\n{allowed_text}")
    agreeing = negated_polarity_agrees(claim, near)
    if agreeing is not None and best_sim >= LOOSE_SIMILARITY:
        return ClaimVerdict(
            claim,
            "supported",
            best,
            best_sim,
            f"{agreeing[0]!r} denied where the evidence says {agreeing[1]!r}",
        )
    if (
        best_sim >= NEGATION_SIMILARITY
        and cover >= SUPPORT_COVERAGE
        and is_negated(claim) != is_negated(best)
    ):
        return ClaimVerdict(
            claim, "contradicted", best, best_sim, "negation differs from the closest evidence"
        )
    similar = (best_sim >= SUPPORT_SIMILARITY and cover >= SUPPORT_COVERAGE) or (
        best_sim >= LOOSE_SIMILARITY and cover >= LOOSE_COVERAGE
    )
    if similar and is_negated(claim) and not is_negated(near):
        # Similar words, but only the claim denies them: the evidence states the opposite.
        return ClaimVerdict(
            claim, "contradicted", best, best_sim, "the claim is negated and the evidence is not"
        )
    if similar:
        return ClaimVerdict(
            claim,
            "supported",
            best,
            best_sim,
            f"similarity {best_sim:.2f}, word coverage {cover:.2f}",
        )
    return ClaimVerdict(
        claim,
        "unsupported",
        best,
        best_sim,
        f"closest evidence similarity {best_sim:.2f}, word coverage {cover:.2f}",
    )
