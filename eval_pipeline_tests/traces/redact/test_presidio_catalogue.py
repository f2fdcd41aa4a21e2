"""The catalogue's Presidio part is Presidio's, and the README lists what the catalogue holds.

Contract (issue 30): ``presidio_recognizers.yaml`` is what ``benchmarks.presidio_catalogue``
writes from the installed Presidio (checked where ``presidio-analyzer`` is importable: it is
a generator's dependency, not the product's); every Presidio pattern the catalogue compiles
finds, with the product's validator, exactly the values Presidio's own recognizer accepts on
the seeded corpus (same check re-implemented); the README's list of what is detected is
``redact.detected``'s text.
"""

import random
import re
from pathlib import Path

import pytest

from benchmarks import presidio_catalogue
from eval_pipeline.traces.redact.catalogue import CATALOGUE, load_presidio
from eval_pipeline.traces.redact.detected import BEGIN, END, detected_markdown
from eval_pipeline_tests.traces.redact.pii_values import MAKERS

README = Path(__file__).resolve().parents[3] / "README.md"


def test_the_readme_lists_what_the_catalogue_detects() -> None:
    text = README.read_text(encoding="utf-8")
    block = text[text.index(BEGIN) : text.index(END) + len(END)]
    assert block == detected_markdown(), "run: python -m benchmarks.presidio_catalogue --readme"


def test_every_presidio_class_named_is_in_the_generated_file() -> None:
    generated = load_presidio()
    named = {r.source.split(": ")[-1] for r in CATALOGUE if "presidio" in r.source}
    assert named == set(presidio_catalogue.RECOGNIZERS) <= set(generated["recognizers"])
    assert generated["source"].startswith("presidio-analyzer ")


def test_regenerating_gives_the_committed_file() -> None:
    pytest.importorskip("presidio_analyzer")
    assert presidio_catalogue.generate() == presidio_catalogue.OUTPUT.read_text(encoding="utf-8")


_CLASSES = {
    "us_ssn": "UsSsnRecognizer",
    "uk_nhs": "NhsRecognizer",
    "uk_nino": "UkNinoRecognizer",
    "in_aadhaar": "InAadhaarRecognizer",
    "in_pan": "InPanRecognizer",
    "ip_address": "IpRecognizer",
}


@pytest.mark.parametrize("kind", sorted(_CLASSES))
def test_product_checks_accept_what_presidio_accepts(kind: str) -> None:
    module = pytest.importorskip("presidio_analyzer.predefined_recognizers")
    theirs = getattr(module, _CLASSES[kind])()
    ours = [r for r in CATALOGUE if r.source.endswith(_CLASSES[kind])]
    rng = random.Random(kind)
    values = [MAKERS[kind](rng) for _ in range(200)]
    values += [re.sub(r"\d$", lambda m: str((int(m.group()) + 1) % 10), v) for v in values]
    for value in values:
        found = theirs.analyze(value, [theirs.supported_entities[0]])
        accepted = any(r.score > 0 and r.start == 0 and r.end == len(value) for r in found)
        mine = any(
            r.pattern.fullmatch(value) and r.validate(value) is not None and not r.context
            for r in ours
        )
        assert mine == accepted, (value, found)
