"""Personal data of every catalogued kind and locale, in every spelling, in every stored field.

Contract (issue 30): a seeded corpus of valid values (``pii_values``: e-mail addresses of any
script, E.164 and national phones, cards, IBANs of five countries, US SSNs, UK NHS numbers and
NINOs, French NIRs, Aadhaar numbers, PANs, CPFs, IP addresses), each written plainly and in
every obfuscated form that fits it, and each placed in a span name, a span attribute, tool
arguments and results (JSON, numbers also split across array elements as strings), an input message, an
event attribute and a resource attribute, is ingested under ``keep-tools``: no stored byte
holds a value as written, plainly, or without its separators. A clean corpus (cities,
versions, dates, times, UUIDs, git SHAs, prices, order numbers) is left as written but for a
rate under ``CLEAN_RATE``.
"""

import json
import random
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline_tests.traces.redact.pii_values import (
    MAKERS,
    raw_forms,
    spellings,
    split_groups,
    values,
)

PER_KIND = 8
CLEAN_TEXTS = 4000
CLEAN_RATE = 0.005
"""Clean texts the scanner may change (measured: see ``test_clean_prose_is_left_alone``)."""


def _s(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _letters_id(number: int, width: int) -> str:
    """A hex id without digits (so no value's digits can hide in an id)."""
    out = ""
    for _ in range(width):
        number, rest = divmod(number, 6)
        out += "abcdef"[rest]
    return out


def _items() -> list[tuple[str, str, str, str]]:
    """(kind, value, form, written) for every value and spelling."""
    return [
        (kind, value, form, written)
        for kind, value in values(30, PER_KIND)
        for form, written in spellings(kind, value).items()
    ]


def _document(items: list[tuple[str, str, str, str]]) -> bytes:
    resource_spans = []
    for number, (_, value, _, written) in enumerate(items):
        trace = _letters_id(number, 32)
        groups = split_groups(value)
        arguments = {"to": written, "note": f"for {written}"}
        if groups:
            arguments["groups"] = groups
        messages = [{"role": "user", "parts": [{"type": "text", "content": f"I am {written}"}]}]
        span = {
            "traceId": trace,
            "spanId": _letters_id(number, 16),
            "name": f"execute_tool lookup {written}",
            "startTimeUnixNano": "1",
            "endTimeUnixNano": "2",
            "attributes": [
                _s("gen_ai.operation.name", "execute_tool"),
                _s("gen_ai.tool.name", "lookup"),
                _s("note", f"customer wrote: {written}"),
                _s("gen_ai.tool.call.arguments", json.dumps(arguments)),
                _s("gen_ai.tool.call.result", json.dumps({"found": [written]})),
                _s("gen_ai.input.messages", json.dumps(messages)),
            ],
            "events": [
                {
                    "name": "exception",
                    "timeUnixNano": "2",
                    "attributes": [_s("exception.message", f"no record for {written}")],
                }
            ],
        }
        resource = {"attributes": [_s("service.name", "desk"), _s("host.owner", written)]}
        resource_spans.append(
            {"resource": resource, "scopeSpans": [{"scope": {"name": "t"}, "spans": [span]}]}
        )
    return json.dumps({"resourceSpans": resource_spans}).encode()


def _stored_texts() -> list[tuple[str, str]]:
    """(where, text) for every file under the home, Parquet read column by column."""
    found = []
    for path in sorted(current_home().root.rglob("*")):
        if not path.is_file():
            continue
        found.append((path.name, path.read_bytes().decode("utf-8", "replace")))
        if path.suffix == ".parquet":
            table = pq.read_table(path)
            found += [
                (f"{path.name}:{name}", repr(table[name].to_pylist()))
                for name in table.column_names
            ]
    return found


def test_every_kind_in_every_spelling_and_field_is_stored_redacted(tmp_path: Path) -> None:
    items = _items()
    assert {kind for kind, *_ in items} == set(MAKERS) and len(items) > 800
    (tmp_path / "corpus.json").write_bytes(_document(items))
    result = CliRunner().invoke(
        cli, ["ingest", str(tmp_path / "corpus.json"), "--redaction-policy", "keep-tools"]
    )
    assert result.exit_code == 0, result.output
    assert f"{len(items)} span(s) stored" in result.output
    stored = _stored_texts()
    leaks = [
        (kind, form, raw, where)
        for kind, value, form, written in items
        for raw in raw_forms(value, written)
        for where, text in stored
        if raw in text
    ]
    assert leaks == []


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_each_spelling_is_replaced_in_a_sentence(kind: str) -> None:
    redactor = Redactor(load_policy())
    rng = random.Random(kind)
    for _ in range(30):
        value = MAKERS[kind](rng)
        for form, written in spellings(kind, value).items():
            text = redactor.scrub_text(f"Dear team, {written}. Thanks!")
            assert not any(raw in text for raw in raw_forms(value, written)), (form, text)


def test_numbers_split_across_array_elements() -> None:
    redactor = Redactor(load_policy("keep-tools"))
    value = {
        "card": ["4111", "1111", "1111", "1111"],
        "card_numbers": [4111, 1111, 1111, 1111],
        "phone": ["+44", "7700", "900123"],
        "nhs": ["943", "476", "5919"],
        "aadhaar": ["2345", "6789", "0124"],
        "data": [85, 90, 88, 92, 86, 89, 91],
        "years": [2019, 2020, 2021, 2022],
        "flows": [-50000, 10000, 15000, 20000, 25000, 30000],
        "scores": ["85", "90", "88", "92"],
    }
    out = redactor.scrub_value(value)
    assert isinstance(out, dict)
    for key in ("card", "card_numbers", "phone", "nhs"):
        assert all(str(piece).startswith("[") for piece in out[key]), (key, out[key])
    for key in ("data", "years", "flows", "scores"):
        assert out[key] == value[key], key


_CITIES = ("Paris", "São Paulo", "München", "Zürich", "Kraków", "Москва", "東京", "Mumbai")


# ruff: noqa: E501  (the clean corpus's makers, one a line)
def clean_texts(seed: int, count: int) -> list[str]:
    """Prose without personal data, dense with the numbers traces hold."""
    rng = random.Random(seed)
    makers = (
        lambda: f"Flight to {rng.choice(_CITIES)} leaves at {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
        lambda: f"Upgraded to v{rng.randint(0, 20)}.{rng.randint(0, 99)}.{rng.randint(0, 999)}",
        lambda: f"version {rng.randint(1, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 99)}",
        lambda: f"on {rng.randint(2000, 2030)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        lambda: f"le {rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{rng.randint(2000, 2030)}",
        lambda: f"at {rng.randint(2000, 2030)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
        lambda: f"request {rng.getrandbits(128):032x}"[:8]
        + "-".join(
            (f"{rng.getrandbits(32):08x}", f"{rng.getrandbits(16):04x}", f"{rng.getrandbits(16):04x}",
             f"{rng.getrandbits(16):04x}", f"{rng.getrandbits(48):012x}")
        ),
        lambda: f"commit {rng.getrandbits(160):040x}",
        lambda: f"costs ${rng.randint(1, 9999):,}.{rng.randint(0, 99):02d} or €{rng.randint(1, 999)},{rng.randint(0, 99):02d}",
        lambda: f"order #{rng.randint(1000, 999999)} of {rng.randint(1, 50)} items",
        lambda: f"took {rng.random() * 1000:.3f} ms, {rng.randint(0, 100)}% done",
        lambda: f"room {rng.randint(100, 999)}, floor {rng.randint(1, 30)}",
        lambda: f"trace step {rng.randint(1, 20)} of {rng.randint(20, 40)} at port {rng.randint(1024, 65535)}",
    )  # fmt: skip
    return [" ".join(rng.choice(makers)() for _ in range(rng.randint(1, 4))) for _ in range(count)]


def test_clean_prose_is_left_alone() -> None:
    redactor = Redactor(load_policy())
    texts = clean_texts(14, CLEAN_TEXTS)
    changed = [text for text in texts if redactor.scrub_text(text) != text]
    assert len(changed) / len(texts) <= CLEAN_RATE, changed[:20]
