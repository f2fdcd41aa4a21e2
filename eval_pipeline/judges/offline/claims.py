"""Claims and evidence units: the text pieces the offline judge compares.

An answer splits into claims (sentences and list items, minus pleasantries and questions). A
context splits into evidence units: sentences of prose, and for structured tool results (JSON
or a Python literal, as some instrumentations record them) one unit per leaf field
(``order status: pending``) plus one per record joining its scalar fields, so a claim that
mentions several fields of one record can match it as a whole. A tool result as the scorers
render it (``get_order returned: {...}``) is structured too, its fields labelled with the tool.
"""

import ast
import re
from typing import Any

from eval_pipeline import json_input

_TOOL_RESULT = re.compile(r"^([A-Za-z_][\w.-]*) returned: (.*)$", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_CLAUSE_BREAK = re.compile(
    r";\s+|,\s+(?:and|but|so|while|although|though|whereas|which|with)\s+"
    r"|\s+(?:because|since|although|whereas|but)\s+",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_WORD = re.compile(r"[a-z0-9]+(?:[.'-][a-z0-9]+)*")
_PLEASANTRY = re.compile(
    r"^(?:sure|certainly|of course|okay|ok|great|hello|hi|hey|thanks|thank you|you're welcome"
    r"|let me know|feel free|is there anything|anything else|happy to help|i hope this helps"
    r"|please let me know|have a (?:great|nice|good))\b",
    re.IGNORECASE,
)
_MIN_CLAIM_WORDS = 3
_MAX_UNITS_PER_CONTEXT = 400

STOPWORDS = frozenset(
    """a an the and or but if then than so of to in on at by for from with without about into
    over under as is are was were be been being am do does did done have has had having it its
    this that these those there here i me my we our you your he she they them their his her
    will would can could should may might must shall also just very really only not no yes all
    any some each every other such what which who whom whose when where why how up out off
    again further once both more most few own same too s t don now per via""".split()  # noqa: SIM905
)


def _sentences(text: str) -> list[str]:
    pieces: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if line:
            pieces.extend(p.strip() for p in _SENTENCE_END.split(line) if p.strip())
    return pieces


def _clauses(sentence: str) -> list[str]:
    """A sentence cut where a new clause adds its own claim ("..., with heavy rain expected")."""
    pieces = [p.strip(" ,;") for p in _CLAUSE_BREAK.split(sentence)]
    return [p for p in pieces if p]


def split_claims(answer: str) -> list[str]:
    """The factual claims of ``answer``: sentences/list items that are not pleasantries.

    A sentence joining clauses ("declined because your card has expired") gives one claim per
    clause, so a supported first half cannot carry an unsupported second half; a clause too
    short to state anything on its own stays with the one before it.
    """
    claims: list[str] = []
    for sentence in _sentences(answer):
        if sentence.endswith("?") or _PLEASANTRY.match(sentence):
            continue
        if len(_WORD.findall(sentence.lower())) < _MIN_CLAIM_WORDS:
            continue
        for clause in _clauses(sentence):
            if claims and len(_WORD.findall(clause.lower())) < _MIN_CLAIM_WORDS:
                claims[-1] = f"{claims[-1]} {clause}"
            else:
                claims.append(clause)
    return claims


def _parse_structured(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        return json_input.loads(stripped)
    except ValueError:
        pass
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _label(key: str) -> str:
    return key.replace("_", " ").replace("-", " ").strip()


def _flatten(value: Any, path: str, units: list[str]) -> None:
    if isinstance(value, dict):
        scalars = []
        for key, inner in value.items():
            label = f"{path} {_label(str(key))}".strip()
            if isinstance(inner, dict | list):
                _flatten(inner, label, units)
            else:
                units.append(f"{label}: {inner}")
                scalars.append(f"{_label(str(key))} {inner}")
        if len(scalars) > 1:
            units.append(f"{path}: " + ", ".join(scalars) if path else ", ".join(scalars))
    elif isinstance(value, list):
        for inner in value:
            _flatten(inner, path, units)
    elif value is not None:
        units.append(f"{path}: {value}" if path else str(value))


def evidence_units(context: str) -> list[str]:
    """The evidence units of one context (structured fields or prose sentences)."""
    tool = _TOOL_RESULT.match(context.strip())
    label, payload = (_label(tool.group(1)), tool.group(2)) if tool else ("", context)
    parsed = _parse_structured(payload)
    units: list[str] = []
    if isinstance(parsed, dict | list):
        _flatten(parsed, label, units)
    else:
        units = _sentences(context)
    return units[:_MAX_UNITS_PER_CONTEXT] or [context.strip()]


def content_words(text: str) -> set[str]:
    """Lower-cased content words of ``text`` with a light plural/verb-suffix stem."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def coverage(claim: str, evidence: str) -> float:
    """Share of the claim's content words that also occur in ``evidence`` (1.0 if none)."""
    words = content_words(claim)
    if not words:
        return 1.0
    return len(words & content_words(evidence)) / len(words)
