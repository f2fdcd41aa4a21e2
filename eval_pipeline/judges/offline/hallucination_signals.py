"""Context-free hallucination signals for the offline judge (HaluEval-style items).

With no evidence and no world knowledge, a similarity model can only look at the answer and
the question: how many specific facts (numbers, dates, identifiers) the answer introduces that
the question does not contain, and whether the answer addresses the question at all. Risk rises
with both. This is a weak, a-priori rule (not fitted to any benchmark); on HaluEval it is close
to chance, and the calibration report says so.
"""

import numpy as np

from eval_pipeline.judges.offline.conflicts import facts
from eval_pipeline.judges.protocol import JudgeVerdict

FACTS_AT_FULL_RISK = 6
RELEVANCE_FLOOR = 0.15
RELEVANCE_CEILING = 0.55


def hallucination_verdict(question: str, answer: str, vectors: np.ndarray) -> JudgeVerdict:
    """Score 1.0 = no sign of hallucination; passed = score >= 0.5 (see the module docstring).

    ``vectors`` are the embeddings of ``[question, answer]``.
    """
    new_facts = sorted(facts(answer) - facts(question))
    fact_risk = min(1.0, len(new_facts) / FACTS_AT_FULL_RISK)
    cosine = float(np.dot(vectors[0], vectors[1]))
    relevance = min(
        1.0, max(0.0, (cosine - RELEVANCE_FLOOR) / (RELEVANCE_CEILING - RELEVANCE_FLOOR))
    )
    score = 0.5 * (1.0 - fact_risk) + 0.5 * relevance
    return JudgeVerdict(
        score=score,
        passed=score >= 0.5,
        reason=(
            f"{len(new_facts)} specific fact(s) not in the question, question-answer cosine "
            f"{cosine:.2f} (context-free heuristic: weak)"
        ),
        details={
            "hallucinated_spans": new_facts[:20],
            "new_fact_count": len(new_facts),
            "cosine": round(cosine, 4),
        },
    )
