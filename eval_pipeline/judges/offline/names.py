"""Names a claim uses that its evidence never mentions: the commonest fabrication in summaries.

A name is a capitalised word (``Paris``, not ``CEO`` or an id like ``RF-8812``) that does not
start its sentence or clause (so "Paris" in "It is cloudy in Paris", not "It"), at least three
letters long, and not a month or weekday (dates are
``conflicts.facts``' business). A claim naming someone or something the evidence (and the
user's question) never mentions states a fact nobody gave the agent: not supported, whatever
its similarity to the evidence.
"""

import re

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_NAME = re.compile(r"(?<![\w#-])[A-Z][a-z][A-Za-z']+(?![\w-])")
_CALENDAR = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday today tomorrow""".split()  # noqa: SIM905
)
_OPENS = re.compile(r"(?:^|[.!?:;\"'(\[\n])\s*$")


def names(text: str) -> set[str]:
    """Capitalised words of ``text`` that are not sentence-initial (see the module docstring)."""
    return {
        match.group()
        for match in _NAME.finditer(text)
        if match.group().lower() not in _CALENDAR and not _OPENS.search(text[: match.start()])
    }


def mentioned_words(texts: list[str]) -> frozenset[str]:
    """Every word of ``texts``, lower-cased (what counts as mentioned by the evidence)."""
    return frozenset(w.lower() for text in texts for w in _WORD.findall(text))


def unmentioned_names(claim: str, mentioned: frozenset[str]) -> list[str]:
    """The claim's names that ``mentioned`` lacks, sorted."""
    return sorted(n for n in names(claim) if n.lower() not in mentioned)
