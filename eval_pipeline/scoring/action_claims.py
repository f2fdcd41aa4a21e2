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
GENERIC_COMPLETIONS = (
    "issued|processed|initiated|completed|complete|confirmed|submitted|placed|made|done|"
    "arranged|finalised|finalized|executed|approved|through"
)
"""Verbs of completion that claim the action their noun names ("refund issued")."""

_CONDITIONS = frozenset(
    ["if", "once", "when", "whenever", "after", "before", "until", "unless", "whether"]
)
"""Words opening a condition or an embedded question: what follows them is not a claim."""
_FRESH = re.compile(r"\s+(?:just now|successfully|right away|for you)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_CLAUSE_BREAKS = ",;:"
_SUBJECT = (
    r"\b(?:i|we)(?:'ve|'d)?"
    r"(?:\s+(?:have|had|just|also|already|now|then|successfully|gone ahead and|went ahead and))*"
)
_DETERMINER = r"(?:your|the|this|that|my|our|a|an)"
_DETERMINED = re.compile(rf"\b{_DETERMINER}\s+(?:[\w$#-]+\s+){{0,2}}$", re.IGNORECASE)
"""A determiner within the two words before an action noun ("your new booking")."""


@dataclass(frozen=True)
class ActionClaim:
    """One claimed action: its verb, the word used and the sentence it is in."""

    verb: str
    word: str
    sentence: str
    tool_patterns: tuple[str, ...]


@dataclass(frozen=True)
class _Frames:
    """The compiled claim patterns for one verb map, anchored on the participle or noun.

    Each participle (or action noun) found in a sentence is checked against the frames in the
    text just before it (patterns ending in ``$``) and just after it (matched from its end):
    one scan for the words, then short anchored checks, instead of trying every frame at every
    position of the answer.
    """

    generic: re.Pattern[str] | None
    candidates: re.Pattern[str] | None = None
    """The tokens that can open a claim (participles, nouns, plural nouns), found as
    ``_TOKEN`` finds tokens: one C-speed scan instead of a Python step per token. None when
    some word is not a token by itself (then every token is looked at)."""


def _alternatives(words: Sequence[str]) -> str:
    return "|".join(map(re.escape, sorted(words, key=len, reverse=True)))


_BEFORE = re.compile(
    rf"(?:{_SUBJECT}"
    r"|\b(?:has|have|had|'s)(?:\s+(?:now|just|also|already))*\s+been"
    r"(?:\s+(?:successfully|fully|now|just|already))*"
    r"|\b(?:your|the|this|that|everything|all)\b[^,;:]{0,40}?\s(?:is|are)"
    r"(?:\s+(?:now|all|officially|successfully|fully|already))*"
    r"|\b(?:was|were)(?:\s+(?:just|now|successfully|already))+"
    r"|\bsuccessfully)\s+$",
    re.IGNORECASE,
)
"""Frames before a participle: "I've", "has been", "your order is now", "was just", ..."""
_FRAME_ENDS = frozenset(
    [
        "i",
        "we",
        "i've",
        "we've",
        "i'd",
        "we'd",
        "have",
        "had",
        "just",
        "also",
        "already",
        "now",
        "then",
        "successfully",
        "and",
        "been",
        "fully",
        "is",
        "are",
        "all",
        "officially",
        "was",
        "were",
    ]
)
"""The words a frame of ``_BEFORE`` can end with (a cheap test before the pattern)."""
_AFTER_SUCCESS = re.compile(r"\s+successfully\b", re.IGNORECASE)
_OPENING_OBJECT = re.compile(r"\s+(?:your|the|this|that|it|them|all)\b", re.IGNORECASE)
_HEADLINE_HEAD = re.compile(r"^\s*(?:[\w#-]+\s+){1,3}$")
_HEADLINE_TAIL = re.compile(r"(?:\s+(?:as requested|for you|now))*\s*[.!]?$", re.IGNORECASE)
_JOINED_BEFORE = re.compile(r"\band\s+(?:also\s+)?$", re.IGNORECASE)
_JOINED_AFTER = re.compile(r"\s+(?:your|the|a|an|it|them|you|\$)", re.IGNORECASE)
_GENERIC_VERBS = (
    "issued|processed|initiated|completed|submitted|placed|made|arranged|executed|"
    "put through|finalised|finalized"
)


_TOKEN_RUN = r"[a-z0-9$#'\-]"
"""A character ``_TOKEN`` continues a token with."""


def _candidates(words: Sequence[str]) -> re.Pattern[str] | None:
    """A pattern finding exactly the ``_TOKEN`` tokens among ``words`` (group ``w``).

    ``_TOKEN`` makes one token of each run of token characters holding a letter, digit,
    ``$`` or ``#``: from the first of those to the end of the run (leading ``'`` and ``-`` are
    skipped). So a word is a token where a run is the word after ``'``/``-`` only.
    """
    if not words or not all(_TOKEN.fullmatch(w) for w in words):
        return None
    # Grouped by first letter, so a token start tries one branch per letter, not every word.
    by_first: dict[str, list[str]] = {}
    for word in words:
        by_first.setdefault(word[0], []).append(word[1:])
    branches = "|".join(
        f"{re.escape(first)}(?:{_alternatives(rests)})" for first, rests in sorted(by_first.items())
    )
    return re.compile(rf"(?<!{_TOKEN_RUN})['\-]*(?P<w>{branches})(?!{_TOKEN_RUN})")


@lru_cache(maxsize=32)
def _frames(word_list: tuple[str, ...], noun_list: tuple[str, ...]) -> _Frames:
    candidates = _candidates([*word_list, *noun_list, *(f"{n}s" for n in noun_list)])
    if not noun_list:
        return _Frames(None, candidates)
    generic = re.compile(
        rf"(?:\s+(?:of|for|to|on)\s+[^,;:!?]{{1,40}}?)?"
        rf"(?:\s+(?P<aux>has been|have been|'s been|has gone|has|have|is|are|was|were|went|got))?"
        rf"(?:\s+(?:now|just|successfully|fully|already|officially))*\s+(?P<g1>{GENERIC_COMPLETIONS})\b"
        rf"|(?P<verb_first>)",
        re.IGNORECASE,
    )
    return _Frames(generic, candidates)


_VERB_NOUN = re.compile(
    rf"{_SUBJECT}\s+(?P<g2>{_GENERIC_VERBS})\s+(?:{_DETERMINER}\s+)?(?:[\w$#-]+\s+){{0,3}}?$",
    re.IGNORECASE,
)
"""A subject and a generic verb before an action noun: "I've processed your refund"."""


def _may_frame(window: str, last: str) -> bool:
    """``_BEFORE.search(window)``, skipped where it cannot match.

    Of its frames only "gone/went ahead and" ends with ``and`` (the commonest last word
    before a participle: "I cancelled it and sent ..."), so without ``ahead`` in an ASCII
    window (non-ASCII letters may fold to ASCII ones) the search is not made.
    """
    if last == "and" and window.isascii() and "ahead" not in window.lower():
        return False
    return _BEFORE.search(window) is not None


def _participle_claim(sentence: str, start: int, end: int, earlier: bool) -> bool:
    """Whether the participle at ``sentence[start:end]`` sits in a claim frame."""
    before = sentence[:start]
    last = before[-16:].rsplit(None, 1)[-1].lower() if before.strip() else ""
    if last in _FRAME_ENDS and _may_frame(before[-80:], last):
        return True
    if _AFTER_SUCCESS.match(sentence, end):
        return True
    if not before.strip():
        if _OPENING_OBJECT.match(sentence, end):
            return True
    elif _HEADLINE_HEAD.match(before) and _HEADLINE_TAIL.match(sentence, end):
        return True
    return earlier and bool(_JOINED_BEFORE.search(before) and _JOINED_AFTER.match(sentence, end))


def _noun_claim(sentence: str, start: int, end: int, frames: _Frames) -> tuple[str, int] | None:
    """The completion word and end of a claim made with the action noun at ``start:end``."""
    before = sentence[:start]
    window = before[-80:]
    verb_first = _VERB_NOUN.search(window) if _may_hold(window, _GENERIC_VERB_WORDS) else None
    if verb_first:
        return verb_first.group("g2").lower(), end
    assert frames.generic is not None
    if not _may_hold(sentence[end:], _COMPLETION_WORDS):
        return None  # the generic frame needs a verb of completion after the noun
    match = frames.generic.match(sentence, end)
    if match is None or not match.group("g1"):
        return None
    aux = (match.group("aux") or "").lower()
    completion = match.group("g1").lower()
    if completion == "through" and aux not in ("went", "has gone"):
        return None
    if not aux:
        # Without a verb only a headline claims: "Refund issued successfully."
        fragment = not before.strip(" \t\"'-\u2014\u2013")
        return (completion, match.end()) if fragment else None
    if aux in ("was", "were"):
        marked = re.search(r"\b(?:just|now|successfully|already)\b", match.group(0), re.I)
        fresh = marked or _FRESH.match(sentence, match.end())
        return (completion, match.end()) if fresh else None
    if aux in ("is", "are") and not _DETERMINED.search(before[-40:]):
        return None
    return completion, match.end()


_GENERIC_VERB_WORDS = tuple(_GENERIC_VERBS.split("|"))
_COMPLETION_WORDS = tuple(GENERIC_COMPLETIONS.split("|"))


def _may_hold(text: str, words: tuple[str, ...]) -> bool:
    """False only when no pattern can find one of ``words`` (lower case) in ``text``.

    A cheap test before a pattern that needs one of them: an ASCII text holds none of them
    when its lower-case form contains none. Other text is left to the pattern, whose
    case-insensitive matching also folds some non-ASCII letters (``ſ`` matches ``s``).
    """
    if not text.isascii():
        return True
    return any(map(text.lower().__contains__, words))


_TOKEN = re.compile(r"[a-z0-9$#][a-z0-9$#'-]*")
_NEGATIONS = frozenset(
    ["not", "never", "no", "nothing", "none", "neither", "nor", "unable", "cannot", "failed"]
)


def _negated(clause: str) -> bool:
    """A negation among the (lower-case) clause's words (``not``, ``n't``, ``no``, ...)."""
    if "n't" in clause or "yet to" in clause:
        return True
    return not _NEGATIONS.isdisjoint(clause.replace(",", " ").split())


def _clause_before(sentence: str, start: int) -> str:
    cut = max(sentence.rfind(mark, 0, start) for mark in _CLAUSE_BREAKS)
    return sentence[cut + 1 : start]


_Compiled = tuple[dict[str, str], dict[str, str], _Frames | None]
_compiled_maps: dict[int, tuple[Mapping[str, Mapping[str, Sequence[str]]], _Compiled]] = {}


def _compiled(verbs: Mapping[str, Mapping[str, Sequence[str]]]) -> _Compiled:
    """Word and noun maps and frames of a verb map (remembered by the map's identity)."""
    known = _compiled_maps.get(id(verbs))
    if known is not None and known[0] is verbs:
        return known[1]
    word_to_verb = {w.lower(): v for v, spec in verbs.items() for w in spec["words"]}
    noun_to_verb = {w.lower(): v for v, spec in verbs.items() for w in spec.get("nouns", ())}
    frames = (
        _frames(tuple(word_to_verb), tuple(noun_to_verb)) if word_to_verb or noun_to_verb else None
    )
    if len(_compiled_maps) >= 64:
        _compiled_maps.clear()
    _compiled_maps[id(verbs)] = (verbs, (word_to_verb, noun_to_verb, frames))
    return word_to_verb, noun_to_verb, frames


def _sentences(text: str) -> list[str]:
    """``_SENTENCE``'s matches in ``text``; a text that is one sentence is not scanned."""
    head = text[:-1]
    if not head or "." in head or "!" in head or "?" in head or "\n" in head:
        return [match.group(0) for match in _SENTENCE.finditer(text)]
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
            else _TOKEN.finditer(lowered)
        )
        for token in tokens:
            word = token.group(token.lastindex or 0)
            start, end = token.span(token.lastindex or 0)
            if word in word_to_verb:
                if _participle_claim(sentence, start, end, bool(found)):
                    found.append((start, end, word_to_verb[word], word))
                continue
            noun = word if word in noun_to_verb else word[:-1] if word.endswith("s") else ""
            if noun in noun_to_verb and frames.generic is not None:
                claim = _noun_claim(sentence, start, end, frames)
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
