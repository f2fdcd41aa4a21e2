"""``find_claims`` on a labelled set of action claims and look-alike non-claims.

Contract: claims of done actions are found in several tenses, voices and phrasings ("Your
refund has been issued.", "I've gone ahead and refunded $20.", "Refund issued successfully.",
"Your order is now cancelled."), and questions, offers, future tense, conditionals, negations,
history read from a tool and policy text are not claims. Measured over (sentence, verb) pairs
of ``data/action_claims/labelled_claims.jsonl``: precision and recall at least 0.95.
"""

import json
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.action_claims import find_claims
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.scoring.builders import call, make_run

ITEM = DatasetItem(item_id="i")
LABELLED = Path(__file__).resolve().parents[2] / "data/action_claims/labelled_claims.jsonl"


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LABELLED.read_text().splitlines() if line.strip()]


def precision_recall(rows: list[dict[str, Any]]) -> tuple[float, float, list[str]]:
    """Precision and recall over (sentence, verb) pairs, and the sentences that were wrong."""
    found = expected = right = 0
    wrong = []
    for row in rows:
        predicted = {claim.verb for claim in find_claims(row["text"])}
        labelled = set(row["claims"])
        found += len(predicted)
        expected += len(labelled)
        right += len(predicted & labelled)
        if predicted != labelled:
            wrong.append(f"{row['text']!r}: found {sorted(predicted)}, labelled {sorted(labelled)}")
    return right / max(1, found), right / max(1, expected), wrong


def test_the_labelled_set_covers_claims_and_non_claims() -> None:
    rows = _rows()
    assert sum(bool(r["claims"]) for r in rows) >= 40
    assert sum(not r["claims"] for r in rows) >= 40


def test_precision_and_recall_on_the_labelled_set() -> None:
    precision, recall, wrong = precision_recall(_rows())
    assert precision >= 0.95 and recall >= 0.95, (precision, recall, wrong)


def test_the_issue_sentences_are_claims_the_scorer_checks() -> None:
    scorer = build_scorer("hallucinated_actions")
    for text in (
        "Your refund has been issued.",
        "I've gone ahead and refunded $20.",
        "Refund issued successfully.",
    ):
        unbacked = scorer.score(make_run([call("get_order_details")], answer=text), ITEM)
        assert (unbacked.status, unbacked.value) == ("scored", 0.0), text
        backed = make_run([call("issue_refund")], answer=text)
        assert scorer.score(backed, ITEM).value == 1.0, text
    cancelled = make_run([], answer="Your order is now cancelled.")
    assert scorer.score(cancelled, ITEM).value == 0.0
