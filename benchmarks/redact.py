"""Benchmark: milliseconds for the redaction scanner to scan one 1 MB attribute, by shape.

The scanner runs on every string the store keeps, so no input shape may make it slow: every
shape within ``BUDGET_MS`` per 1 MB, JSON payloads (what tool arguments and results hold)
within ``JSON_BUDGET_MS``, and linear in the text's size. Each shape is a 1 MB text built to
stress one part of the scanner: long runs of one character (``%``, ``@``, digits, ``a``,
``a@``), clean prose, dense matches of each kind (emails, cards, phones, IBANs, SSNs, all
distinct values), percent- and backslash-u-escaped emails, prose dense with personal data (also
with one Arabic-Indic digit in it: ``re`` takes it for a digit, so the scanner must too),
base64 (how ``bytesValue`` is kept) and JSON payloads (one with its numbers as JSON numbers).
Each text is scanned ``repeats`` times by a fresh tokeniser (nothing cached from the previous
repeat) and the medians are reported: CPU milliseconds of this process (what the scan costs,
whatever else the shared machine runs), with their ratio to the shape's budget (under 1.0 meets
it), and wall milliseconds, with their ratio to a reference timed in the same run on the same
text: one plain linear regex pass (``re`` finding ``@`` before a letter, a C loop).
"""

import base64
import json
import random
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline.traces.redact.redactor import RedactionPolicy, Redactor, load_policy
from eval_pipeline.traces.redact.validators import luhn_ok

_TOKEN = re.compile(r"\[[A-Z]+:[0-9a-f]{24}\]")

BUDGET_MS = 150.0
"""CPU milliseconds one 1 MB attribute of any shape may cost."""
JSON_BUDGET_MS = 30.0
"""CPU milliseconds one 1 MB JSON payload may cost (``JSON_SHAPES``)."""
JSON_SHAPES = ("json_payload", "json_numbers")

SIZE = 1_000_000
SMALL = 100_000
"""The size of the second input of each shape: the linearity ratio compares the two."""

_PROSE = (
    "Customer Jane Roe (jane.roe{i}@example.org, +44 20 7946 {n4}) paid with 4111 1111 1111 1111 "
    "and asked to call 415 555 {n4} or 07700 900{n3}; SSN 123-45-{n4}, IBAN GB82 WEST 1234 5698 "
    "7654 32. "
)


def _fill(make: Callable[[int], str], size: int) -> str:
    pieces: list[str] = []
    total = 0
    index = 0
    while total < size:
        piece = make(index)
        pieces.append(piece)
        total += len(piece)
        index += 1
    return "".join(pieces)[:size]


def _luhn_completed(number: str) -> str:
    """``number`` with the check digit that makes it pass the Luhn check."""
    for digit in "0123456789":
        if luhn_ok(number + digit):
            return number + digit
    raise AssertionError("unreachable: one digit of ten completes any number")


def _iban(country: str, bban: str) -> str:
    """A valid IBAN (ISO 13616 mod-97 check digits) for ``bban``."""
    rearranged = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in rearranged)) % 97
    return f"{country}{check:02d}{bban}"


def _json_payload(size: int, numbers: bool) -> str:
    """A JSON list of customer records (``size`` characters once cut), as a tool result holds.

    ``numbers``: the card and phone numbers are JSON numbers, not strings.
    """
    rng = random.Random(14)
    records: list[str] = []
    total = 0
    while total < size + 200:
        index = len(records)
        fields: dict[str, Any] = {"id": index, "name": f"user {index}"}
        if numbers:
            fields["card"] = int(_luhn_completed(f"411111{index:09d}"))
            fields["phone"] = 14155550000 + index % 10000
            fields["order"] = rng.randint(10**5, 10**6)
        else:
            fields["email"] = f"user{index}@example.com"
            fields["phone"] = f"+1 415 555 {index % 10000:04d}"
        fields["note"] = "".join(rng.choice("abcdefgh ") for _ in range(60))
        fields["amount"] = rng.randint(1, 10**6) / 100
        record = json.dumps(fields)
        records.append(record)
        total += len(record) + 2
    return "[" + ", ".join(records) + "]"


def _prose(size: int) -> str:
    return _fill(lambda i: _PROSE.format(i=i, n4=f"{i % 10000:04d}", n3=f"{i % 1000:03d}"), size)


def shapes(size: int = SIZE) -> dict[str, str]:
    """The benchmark's texts of ``size`` characters by shape name (JSON: whole records)."""
    rng = random.Random(14)
    separators = " .-"
    prose = _prose(size)
    return {
        "percent": "%" * size,
        "at": "@" * size,
        "digits": _fill(lambda i: "0123456789", size),
        "a": "a" * size,
        "a_at": "a@" * (size // 2),
        "clean_prose": _fill(lambda i: f"The agent answered question {i % 97} in full. ", size),
        "emails": _fill(lambda i: f"user{i}@example.com ", size),
        "cards": _fill(
            lambda i: separators[i % 3].join(_group(_luhn_completed(f"4{i:014d}"), 4)) + " ",
            size,
        ),
        "phones": _fill(
            lambda i: (
                (f"+44 20 7946 {i % 10000:04d}", f"(415) 555-{i % 10000:04d}")[i % 2]
                + f" or 07700 900{i % 1000:03d}, "
            ),
            size,
        ),
        "ibans": _fill(lambda i: _iban("GB", f"WEST{12345698000000 + i}") + " ", size),
        "ssns": _fill(lambda i: f"{100 + i % 600:03d}-{i % 90 + 10:02d}-{i % 9000 + 1000} ", size),
        "emails_percent_escaped": _fill(lambda i: f"user{i}%40example.com ", size),
        "emails_unicode_escaped": _fill(lambda i: f"user{i}\\u0040example.com ", size),
        "dense_pii_prose": prose,
        "dense_pii_other_digit": prose[: size // 2] + "\u0663" + prose[size // 2 : size - 1],
        "base64": base64.b64encode(rng.randbytes(size * 3 // 4)).decode(),
        "json_payload": _json_payload(size, numbers=False),
        "json_numbers": _json_payload(size, numbers=True),
    }


def _group(digits: str, width: int) -> list[str]:
    return [digits[i : i + width] for i in range(0, len(digits), width)]


_REFERENCE = re.compile(r"@[A-Za-z]")


def _reference(text: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        sum(1 for _ in _REFERENCE.finditer(text))
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _time(redactor_of: Callable[[], Redactor], text: str, repeats: int) -> tuple[float, float, int]:
    """Median wall and CPU milliseconds of one scan, and the tokens it put in."""
    walls, cpus = [], []
    replaced = 0
    for _ in range(repeats):
        redactor = redactor_of()  # fresh: no text or token cached from the last repeat
        wall, cpu = time.perf_counter(), time.process_time()
        cleaned = redactor.scrub_text(text)
        cpus.append((time.process_time() - cpu) * 1000)
        walls.append((time.perf_counter() - wall) * 1000)
        replaced = cleaned.count("[") - text.count("[")
    return statistics.median(walls), statistics.median(cpus), replaced


def _hmac_ms(policy: RedactionPolicy, count: int, repeats: int) -> float:
    """Median CPU milliseconds of ``count`` new tokens (a keyed hash per distinct value)."""
    values = [f"user{i}@example.com" for i in range(count)]
    times = []
    for _ in range(repeats):
        tokens = Tokeniser((), policy.key)
        cpu = time.process_time()
        for value in values:
            tokens.token("EMAIL", value)
        times.append((time.process_time() - cpu) * 1000)
    return statistics.median(times)


def run(repeats: int = 5, size: int = SIZE) -> dict[str, Any]:
    """Median ms per 1 MB input of each shape, its ratio to its budget and to the reference.

    Per shape also: the linearity ratio, time(1 MB) / time(100 KB) / 10 (1.0: linear; the
    100 KB input is the same shape; ``size`` and a tenth of it for smaller runs), the distinct
    tokens and their keyed hashes' CPU time
    (``hmac_ms``: what any scanner that tokenises each distinct value pays, measured here).
    """
    policy = load_policy()
    small = shapes(size * SMALL // SIZE)
    results: dict[str, Any] = {}
    for name, text in shapes(size).items():
        wall_ms, cpu_ms, replaced = _time(lambda: Redactor(policy), text, repeats)
        _, small_cpu_ms, _ = _time(lambda: Redactor(policy), small[name], repeats)
        reference_ms = _reference(text, repeats)
        distinct = len(set(_TOKEN.findall(Redactor(policy).scrub_text(text))))
        results[name] = {
            "cpu_ms": round(cpu_ms, 1),
            "wall_ms": round(wall_ms, 1),
            "budget_ms": _budget(name),
            "ratio_to_budget": round(cpu_ms / _budget(name), 2),
            "linearity": round(cpu_ms / max(small_cpu_ms, 1e-3) / (SIZE / SMALL), 2),
            "reference_ms": round(reference_ms, 2),
            "ratio_to_reference": round(wall_ms / max(reference_ms, 1e-3), 1),
            "tokens": replaced,
            "distinct_tokens": distinct,
            "hmac_ms": round(_hmac_ms(policy, distinct, repeats), 1),
        }
    worst = max(results.values(), key=lambda r: r["cpu_ms"])
    return {
        "bytes_per_input": size,
        "repeats": repeats,
        "budget_ms": BUDGET_MS,
        "json_budget_ms": JSON_BUDGET_MS,
        "table": _table(results),
        "shapes": results,
        "worst_cpu_ms": worst["cpu_ms"],
        "worst_linearity": max(r["linearity"] for r in results.values()),
        "all_within_budget": all(r["cpu_ms"] < r["budget_ms"] for r in results.values()),
    }


def _budget(shape: str) -> float:
    """The budget of one shape: ``JSON_BUDGET_MS`` for JSON payloads, else ``BUDGET_MS``."""
    return JSON_BUDGET_MS if shape in JSON_SHAPES else BUDGET_MS


def _table(results: dict[str, Any]) -> str:
    """The per-shape figures as aligned text lines (what ``--format text`` shows)."""
    lines = [
        f"\n{'shape':24} {'cpu ms':>7} {'/budget':>7} {'linear':>6} {'tokens':>7} "
        f"{'distinct':>8} {'hmac ms':>7}"
    ]
    for name, r in results.items():
        lines.append(
            f"{name:24} {r['cpu_ms']:7.1f} {r['ratio_to_budget']:7.2f} {r['linearity']:6.2f} "
            f"{r['tokens']:7d} {r['distinct_tokens']:8d} {r['hmac_ms']:7.1f}"
        )
    return "\n".join(lines)
