"""Hard conflicts between a claim and its evidence: facts that cannot both be true.

Three kinds, each cheap and explainable:

- **facts**: numbers, dates and identifiers in the claim that appear nowhere in a context that
  does state facts of that kind (a refund of $45 when the tool result says 54.00);
- **polarity**: the claim uses one side of an opposed pair (approved/denied, delivered/pending,
  in stock/out of stock) and the relevant evidence uses only the other side;
- **negation**: the claim and its closest evidence unit agree in wording but one is negated.

A negated claim term backed by the opposite term ("not shipped" for ``pending``) is agreement,
not conflict (``negated_polarity_agrees``).
"""

import re
from collections.abc import Set as AbstractSet

_NUMBER = re.compile(r"(?<![\w.])[$€£]?\d[\d,]*(?:\.\d+)?%?(?![\w])")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_IDENTIFIER = re.compile(r"#?\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{3,}\b")
# Two-character ids ("order W1", "seat B2") are a letter then a digit; "3D" or "5G" are not ids.
_SHORT_IDENTIFIER = re.compile(r"#?\b[A-Za-z]\d\b")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|cannot|can't|won't|isn't|wasn't|aren't|weren't|doesn't|didn't"
    r"|don't|hasn't|haven't|unable|without)\b|n't\b",
    re.IGNORECASE,
)

POLARITY_PAIRS: tuple[tuple[frozenset[str], frozenset[str]], ...] = tuple(
    (frozenset(a.split("|")), frozenset(b.split("|")))
    for a, b in (
        ("approved|accepted|granted", "rejected|denied|declined|refused"),
        ("completed|delivered|shipped|done|finished|fulfilled", "pending|processing|in progress"),
        ("confirmed|booked|active|reserved", "cancelled|canceled|inactive|expired"),
        ("succeeded|successful|success", "failed|failure|unsuccessful"),
        ("available|in stock", "unavailable|out of stock|sold out"),
        ("paid|settled", "unpaid|outstanding|overdue"),
        ("open|opened", "closed"),
        ("eligible", "ineligible|not eligible"),
        ("refunded", "not refunded|refund denied"),
        ("enabled", "disabled"),
        ("valid", "invalid"),
    )
)


def _normalise_number(token: str) -> str:
    token = token.lstrip("$€£#").rstrip("%").replace(",", "")
    if "." in token:
        token = token.rstrip("0").rstrip(".")
    return token


def facts(text: str) -> set[str]:
    """Normalised numbers, ISO dates and identifiers (mixed letters and digits) in ``text``."""
    found = {_normalise_number(m.group()) for m in _NUMBER.finditer(text)}
    found |= set(_ISO_DATE.findall(text))
    found.update(m.group().lstrip("#").lower() for m in _SHORT_IDENTIFIER.finditer(text))
    for match in _IDENTIFIER.finditer(text):
        identifier = match.group().lstrip("#").lower()
        found.add(identifier)
        # "credit_card_4421" also states 4421, which an answer may quote on its own.
        found.update(_normalise_number(d) for d in re.findall(r"\d+", identifier))
    return {f for f in found if f}


def fact_conflicts(claim: str, context_facts: AbstractSet[str]) -> list[str]:
    """Facts of the claim missing from a context that states facts (empty: no conflict)."""
    if not context_facts:
        return []
    return sorted(facts(claim) - context_facts)


def _has_term(text: str, term: str) -> bool:
    return re.search(rf"\b{re.escape(term)}\b", text) is not None


def polarity_conflict(claim: str, evidence: str) -> tuple[str, str] | None:
    """``(claim_term, evidence_term)`` when the evidence uses only the opposite side."""
    claim_l, evidence_l = claim.lower(), evidence.lower()
    for left, right in POLARITY_PAIRS:
        for mine, theirs in ((left, right), (right, left)):
            said = [t for t in mine if _has_term(claim_l, t)]
            if not said:
                continue
            opposite = [t for t in theirs if _has_term(evidence_l, t)]
            # A negated claim term ("not approved") already agrees with the opposite side.
            if (
                opposite
                and not any(_has_term(evidence_l, t) for t in mine)
                and not (_NEGATION.search(claim_l))
            ):
                return said[0], opposite[0]
    return None


def negated_polarity_agrees(claim: str, evidence: str) -> tuple[str, str] | None:
    """``(claim_term, evidence_term)`` when a negated claim term is backed by its opposite.

    "has not shipped yet" agrees with ``status: pending``: the claim denies one side of an
    opposed pair and the evidence states the other side (and not the denied one).
    """
    claim_l, evidence_l = claim.lower(), evidence.lower()
    if not _NEGATION.search(claim_l):
        return None
    for left, right in POLARITY_PAIRS:
        for mine, theirs in ((left, right), (right, left)):
            said = [t for t in mine if _has_term(claim_l, t)]
            opposite = [t for t in theirs if _has_term(evidence_l, t)]
            if said and opposite and not any(_has_term(evidence_l, t) for t in mine):
                return said[0], opposite[0]
    return None


def is_negated(text: str) -> bool:
    """Whether ``text`` contains a negation word."""
    return _NEGATION.search(text) is not None
