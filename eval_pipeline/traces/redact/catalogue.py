"""The recognizer catalogue: ``recognizers.yaml`` loaded, checked and compiled once.

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
NEEDS = ("at_sign", "digit_run")
"""The cheap tests a recognizer may need a text to pass (``Tokeniser`` computes each once)."""
_FIELDS = {"name", "detector", "kind", "locales", "needs", "pattern", "candidate", "validator"}
_OPTIONAL = {"re2", "unchecked"}


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


class CatalogueError(ValueError):
    """A catalogue entry that cannot be used; the message names the entry and field."""


def _recognizer(entry: Any, where: str) -> Recognizer:
    if not isinstance(entry, dict):
        raise CatalogueError(f"{where}: must be a mapping")
    missing = sorted(_FIELDS - set(entry))
    unknown = sorted(set(entry) - _FIELDS - _OPTIONAL)
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


def load_catalogue(path: Path = CATALOGUE_PATH) -> tuple[Recognizer, ...]:
    """The recognizers of a catalogue file, in its (priority) order."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("version") != 1:
        raise CatalogueError(f"{path}: a mapping with version: 1")
    entries = data.get("recognizers")
    if not isinstance(entries, list):
        raise CatalogueError(f"{path}.recognizers: must be a list")
    found = tuple(_recognizer(e, f"{path}.recognizers[{i}]") for i, e in enumerate(entries))
    names = [r.name for r in found]
    if len(set(names)) != len(names):
        raise CatalogueError(f"{path}: recognizer names must be unique ({names})")
    return found


CATALOGUE = load_catalogue()
"""The shipped recognizers, in priority order."""


def _by_detector(recognizers: tuple[Recognizer, ...]) -> dict[str, tuple[Recognizer, ...]]:
    grouped: dict[str, list[Recognizer]] = {}
    for recognizer in recognizers:
        grouped.setdefault(recognizer.detector, []).append(recognizer)
    return {detector: tuple(group) for detector, group in grouped.items()}


RECOGNIZERS = _by_detector(CATALOGUE)
"""The shipped recognizers by detector name (what a policy turns on), in priority order."""


def recognizers_for(detectors: Iterable[str]) -> tuple[Recognizer, ...]:
    """The shipped recognizers the detector names turn on, in priority order."""
    chosen = set(detectors)
    return tuple(r for r in CATALOGUE if r.detector in chosen)
