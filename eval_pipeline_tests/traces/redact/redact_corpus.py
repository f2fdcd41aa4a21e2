"""A fixed, seeded corpus for the redaction scanner: every bench shape and every kind of PII.

``digests`` gives the sha256 of what ``Tokeniser.redact`` makes of each part of the corpus;
the values were recorded from the scanner once
(``test_scanner_digests``), so any change in output, on any shape or kind, shows as a new
digest. The texts mix valid and invalid values of every detector, their percent- and
backslash-u-escaped forms, base64, non-ASCII letters and digits, and long (gated) texts.
"""

import base64
import hashlib
import random
from collections.abc import Iterator

from benchmarks.redact import _iban, _luhn_completed, shapes
from eval_pipeline.traces.redact.catalogue import RECOGNIZERS, recognizers_for
from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline_tests.traces.redact.phone_formats import LOOKALIKES, PHONES

KEY = b"corpus-key-" * 3
SHAPE_SIZES = (20_000, 1_000_000)
TEXTS = 3000
_POLICIES = (
    tuple(RECOGNIZERS),
    ("email", "phone"),
    ("credit_card", "ssn"),
    ("iban",),
    ("phone",),
)
_SEPARATORS = ("", " ", "-", ".", "  ", " - ", "/", "(", ")")
_NOISE = "ab xyZ_@.%+-()/:;,\n\t" + "0123456789" * 2 + "é中😀ß\u00a0"
_OTHER_DIGITS = "٣۴५০๕１"  # Arabic-Indic, Extended Arabic-Indic, Devanagari, ... fullwidth


def _card(rng: random.Random) -> str:
    length = rng.choice((13, 15, 16, 16, 19))
    number = _luhn_completed("".join(rng.choice("0123456789") for _ in range(length - 1)))
    if rng.random() < 0.25:
        number = number[:-1] + str((int(number[-1]) + 1) % 10)  # fails Luhn
    sep = rng.choice(("", " ", "-", ".", " "))
    return sep.join(number[i : i + 4] for i in range(0, len(number), 4))


def _email(rng: random.Random) -> str:
    local = "".join(rng.choice("abcxyz019._%+-") for _ in range(rng.randint(1, 12)))
    domain = ".".join(
        "".join(rng.choice("abcdef-09") for _ in range(rng.randint(1, 8)))
        for _ in range(rng.randint(1, 3))
    )
    tld = "".join(rng.choice("comorgUKde") for _ in range(rng.randint(1, 5)))
    return f"{local}@{domain}.{tld}"


def _iban_text(rng: random.Random) -> str:
    country = rng.choice(("GB", "DE", "FR", "NL", "gb"))
    bban = "".join(rng.choice("ABCDWEST0123456789") for _ in range(rng.randint(11, 26)))
    value = _iban(country.upper(), bban.upper())
    if rng.random() < 0.3:
        value = value.lower()
    if rng.random() < 0.2:
        value = value[:-1] + rng.choice("0123456789")
    if rng.random() < 0.5:
        value = " ".join(value[i : i + 4] for i in range(0, len(value), 4))
    return value


def _ssn(rng: random.Random) -> str:
    core = f"{rng.randint(0, 999):03d}-{rng.randint(0, 99):02d}-{rng.randint(0, 9999):04d}"
    return rng.choice(("", "", "-", "1", "x")) + core + rng.choice(("", "", "-", "-1", "5"))


def _phone(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(PHONES)[1]
    if rng.random() < 0.3:
        return rng.choice(LOOKALIKES)
    groups = [
        "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 5)))
        for _ in range(rng.randint(1, 5))
    ]
    text = groups[0]
    for group in groups[1:]:
        text += rng.choice(_SEPARATORS) + group
    return rng.choice(("", "", "+", "(", "+1 ", "0")) + text


def _digits(rng: random.Random) -> str:
    return "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 24)))


def _noise(rng: random.Random) -> str:
    return "".join(rng.choice(_NOISE) for _ in range(rng.randint(0, 12)))


def _escaped(rng: random.Random, text: str) -> str:
    form = rng.randrange(4)
    if form == 0:
        return text.replace("@", "%40")
    if form == 1:
        return text.replace("@", "\\u0040")
    if form == 2:
        return "".join(f"%{ord(c):02X}" if c.isascii() and rng.random() < 0.4 else c for c in text)
    return text.replace("@", rng.choice(("%4", "%4G", "\\u004", "%%40", "%C3%A9@")))


_MAKERS = (_card, _email, _iban_text, _ssn, _phone, _phone, _digits, _noise, _noise)


def text(rng: random.Random) -> str:
    """One corpus text: 1-30 fragments, some escaped, some base64, some long."""
    pieces = []
    for _ in range(rng.randint(1, 30)):
        piece = rng.choice(_MAKERS)(rng)
        if rng.random() < 0.05:
            piece = rng.choice(_OTHER_DIGITS) + piece
        pieces.append(piece)
        pieces.append(rng.choice((" ", " ", "", ", ", "\n", "x", "_", "é", "=")))
    result = "".join(pieces)
    roll = rng.random()
    if roll < 0.1:
        result = _escaped(rng, result)
    elif roll < 0.15:
        result = base64.b64encode(result.encode()).decode()
    elif roll < 0.2:
        result = (result + " ") * (9000 // (len(result) + 1) + 1)  # over a gate chunk
    return result


def texts(seed: int, count: int) -> Iterator[str]:
    """``count`` corpus texts from ``seed``."""
    rng = random.Random(seed)
    for _ in range(count):
        yield text(rng)


def _digest_of(results: Iterator[tuple[str, tuple[str, ...]]]) -> str:
    digest = hashlib.sha256()
    for out, kinds in results:
        digest.update(repr((out, kinds)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def digests() -> dict[str, str]:
    """sha256 of the redacted corpus, by part: each bench shape per size, the seeded texts."""
    result = {}
    every = recognizers_for(RECOGNIZERS)
    for size in SHAPE_SIZES:
        for name, shape in shapes(size).items():
            result[f"{name}/{size}"] = _digest_of(iter([Tokeniser(every, KEY).redact(shape)]))
    for index, names in enumerate(_POLICIES):
        tokeniser = Tokeniser(recognizers_for(names), KEY)  # shared: its caches are exercised
        corpus = texts(14_000 + index, TEXTS)
        result[f"texts/{'+'.join(names)}"] = _digest_of(tokeniser.redact(t) for t in corpus)
    return result
