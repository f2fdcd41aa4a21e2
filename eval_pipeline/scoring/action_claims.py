"""Finding claimed actions in a final answer ("I have refunded ...", "... has been cancelled").

``DEFAULT_ACTION_VERBS`` maps an action to the words that claim it and the tool-name patterns
(``fnmatch``, case-insensitive) of the calls that perform it. A claim is a past participle in an
assertive frame: after ``I``/``we`` (``I cancelled``, ``we've booked``), after ``has/have been``,
or next to ``successfully``. Questions and negated clauses (``not``, ``n't``, ``unable``,
``failed``, ...) are not claims; a bare ``was cancelled`` is not either, since agents use it to
report history they read from a tool. Pass ``verbs=`` to the scorer to replace the map.
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
        "tools": ["*refund*", "*return*", "*reimburse*"],
    },
    "cancel": {"words": ["cancelled", "canceled"], "tools": ["*cancel*"]},
    "book": {"words": ["booked", "reserved"], "tools": ["*book*", "*reserve*", "*reservation*"]},
    "send": {
        "words": ["sent", "emailed", "messaged", "forwarded", "notified"],
        "tools": ["*send*", "*email*", "*message*", "*post*", "*forward*", "*notify*"],
    },
    "transfer": {"words": ["transferred", "wired"], "tools": ["*transfer*", "*send_money*"]},
    "pay": {"words": ["paid"], "tools": ["*pay*", "*send_money*", "*transfer*"]},
    "update": {
        "words": ["updated", "changed", "modified", "upgraded"],
        "tools": ["*update*", "*modify*", "*change*", "*edit*", "*set_*", "*upgrade*"],
    },
    "delete": {"words": ["deleted", "removed"], "tools": ["*delete*", "*remove*"]},
    "create": {
        "words": ["created", "scheduled", "added"],
        "tools": ["*create*", "*schedule*", "*add*", "*insert*", "*invite*"],
    },
    "exchange": {"words": ["exchanged"], "tools": ["*exchange*"]},
    "reset": {"words": ["reset"], "tools": ["*reset*", "*password*"]},
    "order": {"words": ["ordered", "purchased"], "tools": ["*order*", "*purchase*", "*buy*"]},
}
_NEGATION = re.compile(
    r"\b(not|never|unable|cannot|can't|couldn't|wasn't|weren't|haven't|hasn't|didn't|won't|"
    r"failed|no longer|yet to)\b|n't\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


@dataclass(frozen=True)
class ActionClaim:
    """One claimed action: its verb, the word used and the sentence it is in."""

    verb: str
    word: str
    sentence: str
    tool_patterns: tuple[str, ...]


@lru_cache(maxsize=32)
def _frames(word_list: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(map(re.escape, word_list))
    return re.compile(
        rf"\b(?:i|we)(?:\s+(?:have|'ve|had|just|also|already|now|successfully))*\s+(?P<a>{words})\b"
        rf"|\b(?:i|we)'ve(?:\s+(?:just|also|already|now|successfully))*\s+(?P<b>{words})\b"
        rf"|\b(?:has|have|had)(?:\s+(?:now|just|also|already))*\s+been"
        rf"(?:\s+(?:successfully|fully|now))*\s+(?P<c>{words})\b"
        rf"|\bsuccessfully\s+(?P<d>{words})\b|\b(?P<e>{words})\s+successfully\b",
        re.IGNORECASE,
    )


def find_claims(
    text: str, verbs: Mapping[str, Mapping[str, Sequence[str]]] = DEFAULT_ACTION_VERBS
) -> list[ActionClaim]:
    """Every claimed action in ``text``, in order (one per verb per sentence)."""
    word_to_verb = {w.lower(): v for v, spec in verbs.items() for w in spec["words"]}
    if not word_to_verb:
        return []
    frames = _frames(tuple(sorted(word_to_verb, key=len, reverse=True)))
    claims: list[ActionClaim] = []
    for sentence_match in _SENTENCE.finditer(text):
        sentence = sentence_match.group(0).strip()
        if not sentence or sentence.endswith("?"):
            continue
        seen: set[str] = set()
        for match in frames.finditer(sentence):
            word = next(g for g in match.groups() if g).lower()
            clause_start = max(
                sentence.rfind(",", 0, match.start()), sentence.rfind(";", 0, match.start()), 0
            )
            if _NEGATION.search(sentence[clause_start : match.end()]):
                continue
            verb = word_to_verb[word]
            if verb in seen:
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
