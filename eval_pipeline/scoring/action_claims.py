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
The frames around a claim word are ``scoring.claim_frames``.
"""

import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatch
from functools import lru_cache
from typing import NamedTuple

from eval_pipeline.scoring.claim_frames import (
    TOKEN,
    Frames,
    frames_for,
    noun_claim,
    participle_claim,
)
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
    "pay": {
        "words": ["paid"],
        "nouns": ["payment"],
        "tools": ["*pay*", "*send_money*", "*transfer*"],
    },
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
_CONDITIONS = frozenset(
    ["if", "once", "when", "whenever", "after", "before", "until", "unless", "whether"]
)
"""Words opening a condition or an embedded question: what follows them is not a claim."""
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


class ActionClaim(NamedTuple):
    """One claimed action: its verb, the word used and the sentence it is in."""

    verb: str
    word: str
    sentence: str
    tool_patterns: tuple[str, ...]


_NEGATIONS = frozenset(
    ["not", "never", "no", "nothing", "none", "neither", "nor", "unable", "cannot", "failed"]
)


def _negated(clause: str) -> bool:
    """A negation among the (lower-case) clause's words (``not``, ``n't``, ``no``, ...)."""
    if "n't" in clause or "yet to" in clause:
        return True
    return not _NEGATIONS.isdisjoint(clause.replace(",", " ").split())


def _clause_before(sentence: str, start: int) -> str:
    rfind = sentence.rfind
    cut = max(rfind(",", 0, start), rfind(";", 0, start), rfind(":", 0, start))
    return sentence[cut + 1 : start]


_Compiled = tuple[dict[str, str], dict[str, str], Frames | None]
_compiled_maps: dict[int, tuple[Mapping[str, Mapping[str, Sequence[str]]], _Compiled]] = {}


def _compiled(verbs: Mapping[str, Mapping[str, Sequence[str]]]) -> _Compiled:
    """Word and noun maps and frames of a verb map (remembered by the map's identity)."""
    known = _compiled_maps.get(id(verbs))
    if known is not None and known[0] is verbs:
        return known[1]
    word_to_verb = {w.lower(): v for v, spec in verbs.items() for w in spec["words"]}
    noun_to_verb = {w.lower(): v for v, spec in verbs.items() for w in spec.get("nouns", ())}
    frames = (
        frames_for(tuple(word_to_verb), tuple(noun_to_verb))
        if word_to_verb or noun_to_verb
        else None
    )
    if len(_compiled_maps) >= 64:
        _compiled_maps.clear()
    _compiled_maps[id(verbs)] = (verbs, (word_to_verb, noun_to_verb, frames))
    return word_to_verb, noun_to_verb, frames


def _sentences(text: str) -> list[str]:
    """``_SENTENCE``'s matches in ``text``; a text that is one sentence is not scanned."""
    head = text[:-1]
    if not head or "." in head or "!" in head or "?" in head or "\n" in head:
        return _SENTENCE.findall(text)
    # No mark before the last character: one match, the text without a closing newline.
    return [head] if text[-1] == "\n" else [text]


_MEMO_SIZE = 64
_memo: dict[
    tuple[str, int], tuple[Mapping[str, Mapping[str, Sequence[str]]], tuple[ActionClaim, ...]]
] = {}
"""The claims of the last few (text, verb map) pairs: the same answer is read by the scorer and
the detectors, and templated answers repeat across runs. Small (a large memo costs the
collector more than it saves)."""


def find_claims(
    text: str, verbs: Mapping[str, Mapping[str, Sequence[str]]] = DEFAULT_ACTION_VERBS
) -> list[ActionClaim]:
    """Every claimed action in ``text``, in order (one per verb per sentence)."""
    key = (text, id(verbs))
    known = _memo.get(key)
    if known is not None and known[0] is verbs:
        return list(known[1])
    claims = _find_claims(text, verbs)
    if len(_memo) >= _MEMO_SIZE:
        del _memo[next(iter(_memo))]
    _memo[key] = (verbs, tuple(claims))
    return claims


def _find_claims(text: str, verbs: Mapping[str, Mapping[str, Sequence[str]]]) -> list[ActionClaim]:
    """``find_claims`` without the memo."""
    word_to_verb, noun_to_verb, frames = _compiled(verbs)
    if frames is None:
        return []
    claims: list[ActionClaim] = []
    for sentence in _sentences(text.replace("\u2019", "'")):
        sentence = sentence.strip()
        if not sentence or sentence.endswith("?"):
            continue
        found: list[tuple[int, int, str, str]] = []
        lowered = sentence.lower()
        tokens = (
            frames.candidates.finditer(lowered)
            if frames.candidates is not None
            else TOKEN.finditer(lowered)
        )
        for token in tokens:
            word = token.group(token.lastindex or 0)
            start, end = token.span(token.lastindex or 0)
            if word in word_to_verb:
                if participle_claim(sentence, start, end, bool(found)):
                    found.append((start, end, word_to_verb[word], word))
                continue
            noun = word if word in noun_to_verb else word[:-1] if word.endswith("s") else ""
            if noun in noun_to_verb and frames.generic is not None:
                claim = noun_claim(sentence, start, end, frames)
                if claim is not None:
                    found.append((start, claim[1], noun_to_verb[noun], f"{noun} {claim[0]}"))
        seen: set[str] = set()
        for start, end, verb, word in sorted(found):
            before = _clause_before(sentence, start).lower()
            words = before.replace(",", " ").split()
            if verb in seen or not _CONDITIONS.isdisjoint(words) or "as soon as" in before:
                continue
            if _negated(before + sentence[start:end].lower()):
                continue
            seen.add(verb)
            claims.append(ActionClaim(verb, word, sentence, tuple(verbs[verb]["tools"])))
    return claims


def performs(tool_name: str, patterns: Sequence[str]) -> bool:
    """True when ``tool_name`` is a write matching one of the claim's tool patterns.

    Read-only tools never perform an action, whatever their name contains
    (``get_refund_policy`` does not refund).
    """
    return _performs(tool_name, tuple(patterns))


@lru_cache(maxsize=8192)
def _performs(tool_name: str, patterns: tuple[str, ...]) -> bool:
    # A pure function of two strings, asked for every (claim, call) pair of every run.
    lowered = tool_name.lower()
    if is_read_only(lowered):
        return False
    return any(fnmatch(lowered, pattern.lower()) for pattern in patterns)
