"""The recognizer catalogue: ``recognizers.yaml`` loaded, checked and compiled once.

Entries with ``presidio: <class>`` take their patterns, flags and context words from
``presidio_recognizers.yaml`` (generated from Microsoft Presidio's predefined recognizers by
``benchmarks.presidio_catalogue``): one recognizer per Presidio pattern, its candidate derived
from the pattern (``presidio_candidate``), and a pattern Presidio scores below
``CONTEXT_SCORE`` without a checksum of its own kept only with one of its context words near
(Presidio raises such scores only from context).

A recognizer is data: its kind, the locales whose format it knows, its exact pattern (and,
optionally, the same pattern in RE2's syntax, for ``engines``), a candidate pattern for the
one-pass search (``gate``), the name of its validator
(``validators``) and the cheap test a text must pass before it is searched. The catalogue
lists them in priority order (where matches of two overlap, the earlier recognizer's is
kept); a redaction policy turns them on by detector name (``RECOGNIZERS``).
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from eval_pipeline.traces.redact.engines import compile_re2
from eval_pipeline.traces.redact.validators import VALIDATORS, Validator

CATALOGUE_PATH = Path(__file__).with_name("recognizers.yaml")
PRESIDIO_PATH = Path(__file__).with_name("presidio_recognizers.yaml")
NEEDS = ("at_sign", "digit_run", "digits4", "non_ascii")
"""The cheap tests a recognizer may need a text to pass (``Tokeniser`` computes each once)."""
CONTEXT_SCORE = 0.3
"""Presidio patterns scored below this, without a checksum, need a context word near."""
_COMMON = {"name", "detector", "kind", "locales", "needs", "validator"}
_FIELDS = _COMMON | {"pattern", "candidate"}
_OPTIONAL = {"re2", "unchecked", "note"}
_PRESIDIO_FIELDS = _COMMON | {"presidio"}
_PRESIDIO_OPTIONAL = {"skip", "note", "not_after", "bare_needs_context"}
_COUNTRIES = {"us": "US", "uk": "GB", "in": "IN"}
_ESCAPE = re.compile(r"\\.")
_ENDS_IN_DIGITS = re.compile(r"\[0-9\]\{(?:[2-9]|\d\d)\}\)*\\b$")
_FLAG_VALUES = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL}


@dataclass(frozen=True)
class Recognizer:
    """One kind of personal data as the catalogue describes it (see ``recognizers.yaml``)."""

    name: str
    detector: str
    kind: str
    locales: tuple[str, ...]
    needs: str
    pattern: re.Pattern[str]
    re2: str | None
    """``pattern`` in RE2's syntax, matching exactly what it matches on ASCII text (``engines``)."""
    candidate: str
    validate: Validator
    unchecked: Validator | None = None
    """For a costly ``validate``: the value once a text's checks are spent (``phones``)."""
    context: tuple[str, ...] = ()
    """Words (lower case) one of which must be near a match for it to count; empty: none."""
    not_after: tuple[str, ...] = ()
    """Words (lower case) that, written just before a match, make it something else."""
    bare_context: tuple[str, ...] = ()
    """Words one of which must be near a match written as digits alone, without the format's
    separators (``bare_needs_context``): a bare digit run passes a mod-11 or Verhoeff check one
    time in ten or eleven, so product, order and account ids would be read as NHS or Aadhaar
    numbers; written 3-3-4 or 4-4-4, or beside its context word, the value is redacted."""
    source: str = "eval-pipeline"
    """Where the pattern comes from (``presidio-analyzer <version>: <class>``, or the product)."""


class CatalogueError(ValueError):
    """A catalogue entry that cannot be used; the message names the entry and field."""


def _check(entry: Any, where: str, fields: set[str], optional: set[str]) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise CatalogueError(f"{where}: must be a mapping")
    missing = sorted(fields - set(entry))
    unknown = sorted(set(entry) - fields - optional)
    if missing or unknown:
        raise CatalogueError(f"{where}: missing {missing}, unknown {unknown}")
    if entry["needs"] not in NEEDS:
        raise CatalogueError(f"{where}.needs: one of {list(NEEDS)}")
    checks = [entry["validator"], *([entry["unchecked"]] if "unchecked" in entry else [])]
    for name in checks:
        if name not in VALIDATORS:
            raise CatalogueError(
                f"{where}: unknown validator {name!r} (known: {sorted(VALIDATORS)})"
            )
    return entry


def _recognizer(entry: Any, where: str) -> Recognizer:
    entry = _check(entry, where, _FIELDS, _OPTIONAL)
    if "re2" in entry:
        try:
            compile_re2(str(entry["re2"]))
        except ValueError as error:
            raise CatalogueError(f"{where}.re2: {error}") from None
    return Recognizer(
        name=str(entry["name"]),
        detector=str(entry["detector"]),
        kind=str(entry["kind"]),
        locales=tuple(map(str, entry["locales"])),
        needs=str(entry["needs"]),
        pattern=re.compile(entry["pattern"]),
        re2=str(entry["re2"]) if "re2" in entry else None,
        candidate=str(entry["candidate"]),
        validate=VALIDATORS[entry["validator"]],
        unchecked=VALIDATORS[entry["unchecked"]] if "unchecked" in entry else None,
    )


def _from_presidio(entry: Any, where: str, presidio: dict[str, Any]) -> list[Recognizer]:
    """One recognizer per pattern of the Presidio class the entry names."""
    entry = _check(entry, where, _PRESIDIO_FIELDS, _PRESIDIO_OPTIONAL)
    source = presidio["recognizers"].get(entry["presidio"])
    if source is None:
        raise CatalogueError(f"{where}.presidio: {entry['presidio']!r} not in {PRESIDIO_PATH.name}")
    skip = set(entry.get("skip") or ())
    names = {p["name"] for p in source["patterns"]}
    if not skip <= names:
        raise CatalogueError(f"{where}.skip: no pattern {sorted(skip - names)} in Presidio's")
    given = 0
    for flag in source["flags"]:
        given |= _FLAG_VALUES[flag]
    context = tuple(str(word).lower() for word in source["context"])
    found = []
    for pattern in source["patterns"]:
        if pattern["name"] in skip:
            continue
        weak = float(pattern["score"]) < CONTEXT_SCORE and not source["validate_result"]
        regex = str(pattern["regex"])
        # Without a letter or "." / "^" / "$" the flags change nothing (and IGNORECASE
        # slows ``re``): digit patterns are compiled without them.
        flags = given if re.search(r"[A-Za-z.^$]", _ESCAPE.sub("", regex)) else 0
        found.append(
            Recognizer(
                name=f"{entry['name']}/{pattern['name']}",
                detector=str(entry["detector"]),
                kind=str(entry["kind"]),
                locales=tuple(map(str, entry["locales"])),
                needs=str(entry["needs"]),
                pattern=re.compile(regex, flags),
                re2=_re2_form(regex, flags),
                candidate=presidio_candidate(regex, flags),
                validate=VALIDATORS[entry["validator"]],
                context=context if weak else (),
                not_after=tuple(str(word).lower() for word in entry.get("not_after") or ()),
                bare_context=context if entry.get("bare_needs_context") else (),
                source=f"{presidio['source']}: {entry['presidio']}",
            )
        )
    return found


def _re2_form(pattern: str, flags: int) -> str | None:
    r"""The RE2 form of a Presidio pattern without lookarounds, flags or ``\w`` (``engines``).

    On ASCII text RE2's ``\b``, ``\d`` and classes match as Python's do; the whole match is
    group 1. Such a pattern starts and ends at a ``\b`` beside a digit or letter, so a search
    restarted at a match's last character finds no match starting there (``engines``).
    """
    if flags or "(?" in pattern.replace("(?:", "") or "\\w" in pattern:
        return None
    if not pattern.startswith("\\b") or _ENDS_IN_DIGITS.search(pattern) is None:
        return None
    return f"({pattern})"


def presidio_candidate(pattern: str, flags: int = 0) -> str:
    r"""An RE2 pattern matching wherever the Python ``pattern`` can (on ASCII digits).

    Lookarounds and ``\b`` only restrict where a match may be, so they are dropped; ``\w``
    and ``\d`` become RE2's Unicode classes (Python's are Unicode-aware; the gate scans texts
    with digits of other scripts whole, ``gate.holds_other_digits``).
    """
    out: list[str] = []
    index, size, in_class = 0, len(pattern), False
    while index < size:
        char = pattern[index]
        if char == "\\" and index + 1 < size:
            escape = pattern[index : index + 2]
            if escape in ("\\w", "\\d"):
                inner = r"\pL\pN_" if escape == "\\w" else r"\pN"
                out.append(inner if in_class else f"[{inner}]")
            else:
                out.append(escape)
            index += 2
            continue
        if in_class:
            in_class = char != "]"
            out.append(char)
        elif char == "[":
            in_class = True
            out.append(char)
            if pattern[index + 1 : index + 2] == "^":
                out.append("^")
                index += 1
            if pattern[index + 1 : index + 2] == "]":
                out.append("]")
                index += 1
        elif pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), index):
            index = _group_end(pattern, index)
            continue
        else:
            out.append(char)
        index += 1
    prefix = "".join(
        letter for flag, letter in ((re.IGNORECASE, "i"), (re.DOTALL, "s")) if flags & flag
    )
    return (f"(?{prefix})" if prefix else "") + "".join(out)


def _group_end(pattern: str, start: int) -> int:
    """The index after the group opened at ``start`` (escapes and classes skipped)."""
    depth, index, in_class = 0, start, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    raise CatalogueError(f"unbalanced group in Presidio pattern {pattern!r}")


def load_presidio(path: Path = PRESIDIO_PATH) -> dict[str, Any]:
    """The generated Presidio file: its source and its recognizers by class name."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("version") != 1:
        raise CatalogueError(f"{path}: a mapping with version: 1")
    return {
        "source": str(data["source"]),
        "recognizers": {r["presidio"]: r for r in data["recognizers"]},
    }


def load_catalogue(path: Path = CATALOGUE_PATH) -> tuple[Recognizer, ...]:
    """The recognizers of a catalogue file, in its (priority) order."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("version") != 1:
        raise CatalogueError(f"{path}: a mapping with version: 1")
    entries = data.get("recognizers")
    if not isinstance(entries, list):
        raise CatalogueError(f"{path}.recognizers: must be a list")
    presidio: dict[str, Any] | None = None
    found: list[Recognizer] = []
    for index, entry in enumerate(entries):
        where = f"{path}.recognizers[{index}]"
        if isinstance(entry, dict) and "presidio" in entry:
            presidio = presidio or load_presidio()
            found += _from_presidio(entry, where, presidio)
        else:
            found.append(_recognizer(entry, where))
    names = [r.name for r in found]
    if len(set(names)) != len(names):
        raise CatalogueError(f"{path}: recognizer names must be unique ({names})")
    return tuple(found)


CATALOGUE = load_catalogue()
"""The shipped recognizers, in priority order."""


def _by_detector(recognizers: tuple[Recognizer, ...]) -> dict[str, tuple[Recognizer, ...]]:
    grouped: dict[str, list[Recognizer]] = {}
    for recognizer in recognizers:
        grouped.setdefault(recognizer.detector, []).append(recognizer)
    return {detector: tuple(group) for detector, group in grouped.items()}


RECOGNIZERS = _by_detector(CATALOGUE)
"""The shipped recognizers by detector name (what a policy turns on), in priority order."""


LOCALES = tuple(sorted({locale for r in CATALOGUE for locale in r.locales} - {"any"}))
"""The locales the shipped recognizers know (besides ``any``: formats used everywhere)."""
KINDS = tuple(dict.fromkeys(r.kind for r in CATALOGUE))
"""The token kinds the shipped recognizers make."""


def recognizers_for(
    detectors: Iterable[str], locales: Iterable[str] | None = None
) -> tuple[Recognizer, ...]:
    """The shipped recognizers the detector names turn on, in priority order.

    ``locales``: only recognizers of formats used everywhere or in one of them (None: all).
    """
    chosen = set(detectors)
    wanted = None if locales is None else {"any", *locales}
    return tuple(
        r
        for r in CATALOGUE
        if r.detector in chosen and (wanted is None or not wanted.isdisjoint(r.locales))
    )
