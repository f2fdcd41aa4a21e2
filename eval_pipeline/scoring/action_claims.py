"""Finding claimed actions in a final answer ("I have refunded ...", "Refund issued.").

``DEFAULT_ACTION_VERBS`` maps an action to the past participles that claim it (``words``), the
action nouns a generic verb can claim it with (``nouns``: "your refund has been issued"), and
the tool-name patterns (``fnmatch``, case-insensitive) of the calls that perform it. A claim is:

- a participle after ``I``/``we`` ("I cancelled", "we've booked", "I've gone ahead and
  refunded"), after ``has/have been`` ("has been cancelled"), after ``is/are`` with a definite
  subject ("your order is now cancelled"), next to ``successfully``, after ``was`` with a
  marker of a fresh action ("was successfully cancelled"), opening a subjectless sentence
  ("Cancelled your order as requested.") or closing a headline ("Order cancelled."), or
  joined by ``and`` to a claim of the same sentence ("I cancelled it and refunded $20");
- an action noun with a generic verb of completion (``issued``, ``processed``, ``initiated``,
  ``confirmed``, ``placed``, ``made``, ``complete``, ``went through``, ...): "a refund of $20
  has been issued", "I've processed your refund", "Refund issued successfully.",
  "Cancellation complete.".

Not claims: questions; clauses with a negation (``not``, ``n't``, ``no``, ``nothing``,
``unable``, ``failed``, ...) before the claim; clauses opened by ``if``, ``once``, ``when``,
``whether``, ... (conditions, embedded questions); offers and the future tense (no participle
frame matches "I'll refund" or "will be cancelled"); a bare ``was cancelled`` or "refund was
issued" (agents use it to report history they read from a tool); habitual policy text
("Refunds are issued within 5 days": an action noun without a determiner). The labelled set in
``data/action_claims`` measures all this. Pass ``verbs=`` to the scorer to replace the map.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import lru_cache

from eval_pipeline.scoring.tool_kinds import is_read_only

DEFAULT_ACTION_VERBS: dict[str, dict[str, list[str]]] = {
    "refund": {
        "words": ["refunded", "reimbursed"],
        "nouns": ["refund", "reimbursement"],
        "tools": ["*refund*", "*return*", "*reimburse*"],
    },
    "cancel": {
        "words": ["cancelled", "canceled"],
        "nouns": ["cancellation"],
        "tools": ["*cancel*"],
    },
    "book": {
        "words": ["booked", "reserved"],
        "nouns": ["booking", "reservation"],
        "tools": ["*book*", "*reserve*", "*reservation*"],
    },
    "send": {
        "words": ["sent", "emailed", "messaged", "forwarded", "notified"],
        "tools": ["*send*", "*email*", "*message*", "*post*", "*forward*", "*notify*"],
    },
    "transfer": {
        "words": ["transferred", "wired"],
        "nouns": ["transfer", "wire"],
        "tools": ["*transfer*", "*send_money*"],
    },
    "pay": {"words": ["paid"], "nouns": ["payment"], "tools": ["*pay*", "*send_money*", "*transfer*"]},
    "update": {
        "words": ["updated", "changed", "modified", "upgraded"],
        "tools": ["*update*", "*modify*", "*change*", "*edit*", "*set_*", "*upgrade*"],
    },
    "delete": {"words": ["deleted", "removed"], "tools": ["*delete*", "*remove*"]},
    "create": {
        "words": ["created", "scheduled", "added"],
        "tools": ["*create*", "*schedule*", "*add*", "*insert*", "*invite*"],
    },
    "exchange": {"words": ["exchanged"], "nouns": ["exchange"], "tools": ["*exchange*"]},
    "reset": {"words": ["reset"], "tools": ["*reset*", "*password*"]},
    "order": {
        "words": ["ordered", "purchased"],
        "nouns": ["order", "purchase"],
        "tools": ["*order*", "*purchase*", "*buy*"],
    },
}
GENERIC_COMPLETIONS = (
    "issued|processed|initiated|completed|complete|confirmed|submitted|placed|made|done|"
    "arranged|finalised|finalized|executed|approved|through"
)
"""Verbs of completion that claim the action their noun names ("refund issued")."""

_NEGATION = re.compile(
    r"\b(not|never|no|nothing|none|neither|nor|unable|cannot|can't|couldn't|wasn't|weren't|"
    r"haven't|hasn't|didn't|won't|isn't|aren't|failed|yet to)\b|n't\b",
    re.IGNORECASE,
)
_CONDITION = re.compile(
    r"\b(if|once|when|whenever|after|before|until|unless|whether|as soon as)\b", re.IGNORECASE
)
_FRESH = re.compile(r"\s+(?:just now|successfully|right away|for you)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_CLAUSE_BREAKS = ",;:"
_SUBJECT = r"\b(?:i|we)(?:'ve|'d)?(?:\s+(?:have|had|just|also|already|now|then|successfully|gone ahead and|went ahead and))*"
_DETERMINER = r"(?:your|the|this|that|my|our|a|an)"


@dataclass(frozen=True)
class ActionClaim:
    """One claimed action: its verb, the word used and the sentence it is in."""

    verb: str
    word: str
    sentence: str
    tool_patterns: tuple[str, ...]


@dataclass(frozen=True)
class _Frames:
    """The compiled claim patterns for one verb map."""

    claims: re.Pattern[str]
    joined: re.Pattern[str]
    nouns: re.Pattern[str] | None


def _alternatives(words: Sequence[str]) -> str:
    return "|".join(map(re.escape, sorted(words, key=len, reverse=True)))


@lru_cache(maxsize=32)
def _frames(word_list: tuple[str, ...], noun_list: tuple[str, ...]) -> _Frames:
    w = _alternatives(word_list)
    claims = re.compile(
        rf"{_SUBJECT}\s+(?P<a>{w})\b"
        rf"|\b(?:has|have|had|'s)(?:\s+(?:now|just|also|already))*\s+been"
        rf"(?:\s+(?:successfully|fully|now|just|already))*\s+(?P<b>{w})\b"
        rf"|\b(?:your|the|this|that|it|everything|all)\b[^,;:]{{0,40}}?\s(?:is|are)"
        rf"(?:\s+(?:now|all|officially|successfully|fully|already))*\s+(?P<c>{w})\b"
        rf"|\b(?:was|were)(?:\s+(?:just|now|successfully|already))+\s+(?P<d>{w})\b"
        rf"|\bsuccessfully\s+(?P<e>{w})\b|\b(?P<f>{w})\s+successfully\b"
        rf"|^\s*(?P<g>{w})\s+(?:your|the|this|that|it|them|all)\b"
        rf"|^\s*(?:[\w#-]+\s+){{1,3}}?(?P<h>{w})(?:\s+(?:as requested|for you|now))*\s*[.!]?$",
        re.IGNORECASE,
    )
    joined = re.compile(
        rf"\band\s+(?:also\s+)?(?P<a>{w})\s+(?:your|the|a|an|it|them|you|\$)", re.IGNORECASE
    )
    if not noun_list:
        return _Frames(claims, joined, None)
    n = _alternatives(noun_list)
    nouns = re.compile(
        rf"(?P<det>\b{_DETERMINER}\s+(?:[\w$#-]+\s+){{0,2}}?)?\b(?P<n1>{n})s?\b"
        rf"(?:\s+(?:of|for|to|on)\s+[^,;:!?]{{1,40}}?)?"
        rf"(?:\s+(?P<aux>has been|have been|'s been|has gone|has|have|is|are|was|were|went|got))?"
        rf"(?:\s+(?:now|just|successfully|fully|already|officially))*\s+(?P<g1>{GENERIC_COMPLETIONS})\b"
        rf"|{_SUBJECT}\s+(?P<g2>issued|processed|initiated|completed|submitted|placed|made|"
        rf"arranged|executed|put through|finalised|finalized)\s+(?:{_DETERMINER}\s+)?"
        rf"(?:[\w$#-]+\s+){{0,3}}?(?P<n2>{n})\b",
        re.IGNORECASE,
    )
    return _Frames(claims, joined, nouns)


def _noun_claim(match: re.Match[str], sentence: str) -> bool:
    """Whether a noun-frame match claims a done action (see the module docstring)."""
    if match.group("n2"):
        return True
    aux = (match.group("aux") or "").lower()
    completion = match.group("g1").lower()
    if completion == "through" and aux not in ("went", "has gone"):
        return False
    if not aux:
        # Without a verb only a headline claims: "Refund issued successfully."
        return not sentence[: match.start("n1")].strip(" \t\"'-—–")
    if aux in ("was", "were"):
        marked = re.search(r"\b(?:just|now|successfully|already)\b", match.group(0), re.I)
        return bool(marked or _FRESH.match(sentence, match.end()))
    if aux in ("is", "are"):
        return bool(match.group("det"))
    return True


def _clause_before(sentence: str, start: int) -> str:
    cut = max(sentence.rfind(mark, 0, start) for mark in _CLAUSE_BREAKS)
    return sentence[cut + 1 : start]


def find_claims(
    text: str, verbs: Mapping[str, Mapping[str, Sequence[str]]] = DEFAULT_ACTION_VERBS
) -> list[ActionClaim]:
    """Every claimed action in ``text``, in order (one per verb per sentence)."""
    word_to_verb = {w.lower(): v for v, spec in verbs.items() for w in spec["words"]}
    noun_to_verb = {w.lower(): v for v, spec in verbs.items() for w in spec.get("nouns", ())}
    if not word_to_verb and not noun_to_verb:
        return []
    frames = _frames(tuple(word_to_verb), tuple(noun_to_verb))
    claims: list[ActionClaim] = []
    for sentence_match in _SENTENCE.finditer(text.replace("\u2019", "'")):
        sentence = sentence_match.group(0).strip()
        if not sentence or sentence.endswith("?"):
            continue
        found: list[tuple[int, str, str]] = []
        for match in frames.claims.finditer(sentence):
            word = next(g for g in match.groups() if g).lower()
            found.append((match.start(), match.end(), word_to_verb[word], word))
        if frames.nouns is not None:
            for match in frames.nouns.finditer(sentence):
                if _noun_claim(match, sentence):
                    noun = (match.group("n1") or match.group("n2")).lower()
                    word = (match.group("g1") or match.group("g2")).lower()
                    found.append((match.start(), match.end(), noun_to_verb[noun], f"{noun} {word}"))
        if found:
            for match in frames.joined.finditer(sentence):
                if match.start() > min(start for start, _, _, _ in found):
                    word = match.group("a").lower()
                    found.append((match.start(), match.end(), word_to_verb[word], word))
        seen: set[str] = set()
        for start, end, verb, word in sorted(found):
            before = _clause_before(sentence, start)
            if verb in seen or _CONDITION.search(before):
                continue
            if _NEGATION.search(before + sentence[start:end]):
                continue
            seen.add(verb)
            claims.append(ActionClaim(verb, word, sentence, tuple(verbs[verb]["tools"])))
    return claims


def performs(tool_name: str, patterns: Sequence[str]) -> bool:
    """True when ``tool_name`` is a write matching one of the claim's tool patterns.

    Read-only tools never perform an action, whatever their name contains
    (``get_refund_policy`` does not refund).
    """
    lowered = tool_name.lower()
    if is_read_only(lowered):
        return False
    return any(fnmatch(lowered, pattern.lower()) for pattern in patterns)
