"""Where a participle or action noun in a sentence claims an action (``action_claims``).

A claim word found in a sentence is checked against the frames in the text just before it
(patterns ending in ``$``: "I've", "has been", "your order is now") and just after it
(patterns matched from its end: "successfully", a verb of completion after an action noun):
one scan for the words, then short anchored checks, instead of trying every frame at every
position of the answer. ``frames_for`` compiles the word scan and the noun frames of a verb
map's words; ``participle_claim`` and ``noun_claim`` decide one word in its sentence.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

GENERIC_COMPLETIONS = (
    "issued|processed|initiated|completed|complete|confirmed|submitted|placed|made|done|"
    "arranged|finalised|finalized|executed|approved|through"
)
"""Verbs of completion that claim the action their noun names ("refund issued")."""
_FRESH = re.compile(r"\s+(?:just now|successfully|right away|for you)\b", re.IGNORECASE)
_SUBJECT = (
    r"\b(?:i|we)(?:'ve|'d)?"
    r"(?:\s+(?:have|had|just|also|already|now|then|successfully|gone ahead and|went ahead and))*"
)
_DETERMINER = r"(?:your|the|this|that|my|our|a|an)"
_DETERMINED = re.compile(rf"\b{_DETERMINER}\s+(?:[\w$#-]+\s+){{0,2}}$", re.IGNORECASE)
"""A determiner within the two words before an action noun ("your new booking")."""


@dataclass(frozen=True)
class Frames:
    """The compiled claim patterns for one verb map, anchored on the participle or noun.

    Each participle (or action noun) found in a sentence is checked against the frames in the
    text just before it (patterns ending in ``$``) and just after it (matched from its end):
    one scan for the words, then short anchored checks, instead of trying every frame at every
    position of the answer.
    """

    generic: re.Pattern[str] | None
    candidates: re.Pattern[str] | None = None
    """The tokens that can open a claim (participles, nouns, plural nouns), found as
    ``TOKEN`` finds tokens: one pattern scan instead of a Python step per token. None when
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
"""A character ``TOKEN`` continues a token with."""


def _candidates(words: Sequence[str]) -> re.Pattern[str] | None:
    """A pattern finding exactly the ``TOKEN`` tokens among ``words`` (group ``w``).

    ``TOKEN`` makes one token of each run of token characters holding a letter, digit,
    ``$`` or ``#``: from the first of those to the end of the run (leading ``'`` and ``-`` are
    skipped). So a word is a token where a run is the word after ``'``/``-`` only.
    """
    if not words or not all(TOKEN.fullmatch(w) for w in words):
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
def frames_for(word_list: tuple[str, ...], noun_list: tuple[str, ...]) -> Frames:
    """The word scan and noun frames of a verb map's participles and action nouns."""
    candidates = _candidates([*word_list, *noun_list, *(f"{n}s" for n in noun_list)])
    if not noun_list:
        return Frames(None, candidates)
    generic = re.compile(
        rf"(?:\s+(?:of|for|to|on)\s+[^,;:!?]{{1,40}}?)?"
        rf"(?:\s+(?P<aux>has been|have been|'s been|has gone|has|have|is|are|was|were|went|got))?"
        rf"(?:\s+(?:now|just|successfully|fully|already|officially))*\s+(?P<g1>{GENERIC_COMPLETIONS})\b"
        rf"|(?P<verb_first>)",
        re.IGNORECASE,
    )
    return Frames(generic, candidates)


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


def participle_claim(sentence: str, start: int, end: int, earlier: bool) -> bool:
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


def noun_claim(sentence: str, start: int, end: int, frames: Frames) -> tuple[str, int] | None:
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
    when its lower-case form contains none (one scan for all the words). Other text is left
    to the pattern, whose case-insensitive matching also folds some non-ASCII letters (``ſ``
    matches ``s``).
    """
    if not text.isascii():
        return True
    return _any_of(words).search(text.lower()) is not None


@lru_cache(maxsize=8)
def _any_of(words: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern finding any of ``words`` as a substring."""
    return re.compile("|".join(map(re.escape, words)))


TOKEN = re.compile(r"[a-z0-9$#][a-z0-9$#'-]*")
