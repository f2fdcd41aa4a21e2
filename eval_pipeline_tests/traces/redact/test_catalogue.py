"""The recognizer catalogue: data that loads in priority order, with candidates that hold.

Contract (``redact.catalogue``): the shipped catalogue turns on the policy's detector names
in priority order (cards, IBANs, emails, SSNs as always, then the national identifiers with
a distinct shape, phones, and UK NHS numbers, which share NANP phones' shape); every
recognizer's candidate (RE2, for the gate's one pass) matches wherever its exact pattern does
(on text whose digits are ASCII); an entry naming an unknown validator or field fails at
load, naming the entry.
"""

from pathlib import Path

import pytest
import re2
import yaml
from hypothesis import HealthCheck, assume, given, settings

from eval_pipeline.traces.redact import phones
from eval_pipeline.traces.redact.catalogue import (
    CATALOGUE,
    RECOGNIZERS,
    CatalogueError,
    load_catalogue,
    recognizers_for,
)
from eval_pipeline.traces.redact.gate import holds_other_digits
from eval_pipeline_tests.traces.redact.generated_texts import TEXTS


def test_policy_names_turn_on_recognizers_in_priority_order() -> None:
    assert list(RECOGNIZERS) == [
        "credit_card", "iban", "email", "ssn", "uk_nino", "in_aadhaar", "in_pan",
        "ip_address", "fr_nir", "br_cpf", "phone", "uk_nhs",
    ]  # fmt: skip
    kinds = [r.kind for r in CATALOGUE]
    assert kinds[:5] == ["CARD", "IBAN", "EMAIL", "SSN", "EMAIL"]
    assert kinds[-3:] == ["PHONE", "PHONE", "UK_NHS"]
    phone_email = [r for r in CATALOGUE if r.detector in ("phone", "email")]
    assert recognizers_for(["phone", "email"]) == tuple(phone_email)
    french = recognizers_for(RECOGNIZERS, ["FR"])
    assert all({"any", "FR"} & set(r.locales) for r in french)
    assert {r.detector for r in french} >= {"fr_nir", "phone"}
    assert not {"uk_nhs", "br_cpf"} & {r.detector for r in french}
    national = RECOGNIZERS["phone"][1]
    assert national.unchecked is not None and national.locales == phones.REGIONS


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(TEXTS)
def test_every_candidate_matches_where_its_exact_pattern_does(text: str) -> None:
    assume(not holds_other_digits(text))  # such texts are scanned whole (``gate``)
    for recognizer in CATALOGUE:
        candidate = re2.compile(recognizer.candidate)
        for found in recognizer.pattern.finditer(text):
            # The candidate consumes the boundary characters the lookarounds only look at.
            window = text[max(0, found.start() - 1) : found.end() + 1]
            assert candidate.search(window) is not None, (recognizer.name, found.group())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"validator": "mod11"}, "unknown validator 'mod11'"),
        ({"needs": "moon"}, "needs"),
        ({"colour": "red"}, "unknown \\['colour'\\]"),
    ],
)
def test_a_bad_entry_fails_at_load_naming_it(
    tmp_path: Path, change: dict[str, str], message: str
) -> None:
    entry = {
        "name": "x",
        "detector": "x",
        "kind": "X",
        "locales": ["any"],
        "needs": "digit_run",
        "pattern": r"\d{9}",
        "candidate": r"\d{9}",
        "validator": "as_written",
        **change,
    }
    path = tmp_path / "catalogue.yaml"
    path.write_text(yaml.safe_dump({"version": 1, "recognizers": [entry]}))
    with pytest.raises(CatalogueError, match=rf"recognizers\[0\].*{message}"):
        load_catalogue(path)
