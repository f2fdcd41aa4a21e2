"""Seeded personal data of every kind the catalogue knows, and the spellings it is written in.

Values carry valid check digits (Luhn, IBAN mod 97, NHS mod 11, NIR mod 97, Verhoeff, CPF's
two mod-11 digits), computed here from each format's published rule, not by the product's
validators. ``spellings`` gives each value as written plainly and in the obfuscated forms
issue 30 found stored raw: non-breaking, narrow and thin spaces, Unicode hyphens, full-width
digits, zero-width characters, glued to a word, percent-encoded (once and twice), HTML
character references, ``[at]``/``[dot]``, and base64 inside a longer text.
"""

import base64
import random
from collections.abc import Callable, Iterator

from benchmarks.redact import _iban, _luhn_completed

_VERHOEFF_D = (
    "0123456789", "1234067895", "2340178956", "3401289567", "4012395678",
    "5987604321", "6598710432", "7659821043", "8765932104", "9876543210",
)  # fmt: skip
_VERHOEFF_P = (
    "0123456789", "1576283094", "5803796142", "8916043527",
    "9453126870", "4286573901", "2793806415", "7046913258",
)  # fmt: skip
_VERHOEFF_INV = "0432156789"
_IBAN_BBAN = {"GB": (4, 14), "DE": (0, 18), "FR": (0, 23), "ES": (0, 20), "NL": (4, 10)}
"""Country: letters then digits in its BBAN (a bank code of letters, then an account)."""
_LOCAL_PARTS = ("ada.lovelace", "jürgen.müller", "élodie", "用户", "o'brien+tag", "Zoë_K")
_DOMAINS = ("example.com", "müller.de", "例子.中国", "xn--mller-kva.de", "mail.example.co.uk")


def _digits(rng: random.Random, count: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(count))


def verhoeff_digit(digits: str) -> str:
    """The Verhoeff check digit of ``digits``."""
    check = 0
    for index, digit in enumerate(reversed(digits)):
        check = int(_VERHOEFF_D[check][int(_VERHOEFF_P[(index + 1) % 8][int(digit)])])
    return _VERHOEFF_INV[check]


def email(rng: random.Random) -> str:
    """An address with a local part and domain of any script (IDN, punycode)."""
    return f"{rng.choice(_LOCAL_PARTS)}{rng.randint(1, 99)}@{rng.choice(_DOMAINS)}"


def card(rng: random.Random) -> str:
    """A 16-digit card number passing Luhn, in groups of four."""
    number = _luhn_completed(rng.choice("3456") + _digits(rng, 14))
    return " ".join(number[i : i + 4] for i in range(0, 16, 4))


def iban(rng: random.Random) -> str:
    """An IBAN of one of five countries with its mod-97 check digits, in groups of four."""
    country = rng.choice(sorted(_IBAN_BBAN))
    letters, digits = _IBAN_BBAN[country]
    bban = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(letters))
    value = _iban(country, bban + _digits(rng, digits))
    return " ".join(value[i : i + 4] for i in range(0, len(value), 4))


def phone(rng: random.Random) -> str:
    """A phone number in E.164 or a national spelling (UK, FR, US, IN, BR)."""
    return rng.choice(
        (
            f"+44 7700 900{_digits(rng, 3)}",
            f"07700 900{_digits(rng, 3)}",
            f"+33 6 12 34 {_digits(rng, 2)} {_digits(rng, 2)}",
            f"06 12 34 {_digits(rng, 2)} {_digits(rng, 2)}",
            f"(415) 555-{_digits(rng, 4)}",
            f"+91 98765 {_digits(rng, 5)}",
            f"(11) 91234-{_digits(rng, 4)}",
        )
    )


def us_ssn(rng: random.Random) -> str:
    """A US SSN as the SSA issues them (area 001-899 but 666, group and serial not zero)."""
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}-{rng.randint(1, 99):02d}-{rng.randint(1, 9999):04d}"


def uk_nhs(rng: random.Random) -> str:
    """A UK NHS number: 9 digits and a mod-11 check digit (never 10), written 3-3-4."""
    while True:
        body = _digits(rng, 9)
        check = 11 - sum(int(d) * w for d, w in zip(body, range(10, 1, -1), strict=True)) % 11
        if check != 10:
            number = body + str(check % 11)
            return f"{number[:3]} {number[3:6]} {number[6:]}"


def uk_nino(rng: random.Random) -> str:
    """A UK National Insurance number: two allowed letters, 6 digits, a suffix A-D."""
    first = rng.choice("ABCEGHJKLMNPRSTWXYZ")
    second = rng.choice("ABCEGHJKLMNPRSTWXYZ")
    if first + second in ("BG", "GB", "NK", "KN", "NT", "TN", "ZZ"):
        second = "A"
    digits = _digits(rng, 6)
    return f"{first}{second} {digits[:2]} {digits[2:4]} {digits[4:]} {rng.choice('ABCD')}"


def fr_nir(rng: random.Random) -> str:
    """A French NIR: sex, year, month, department, commune, order, key 97 - (n mod 97)."""
    department = rng.choice(("75", "69", "13", "2A", "2B", "33"))
    parts = [
        rng.choice("12"),
        f"{rng.randint(0, 99):02d}",
        f"{rng.randint(1, 12):02d}",
        department,
        _digits(rng, 3),
        _digits(rng, 3),
    ]
    number = "".join(parts).replace("2A", "19").replace("2B", "18")
    key = 97 - int(number) % 97
    return " ".join([*parts, f"{key:02d}"])


def in_aadhaar(rng: random.Random) -> str:
    """An Aadhaar number: 11 digits (first 2-9) and a Verhoeff check digit, written 4-4-4."""
    while True:
        body = rng.choice("23456789") + _digits(rng, 10)
        number = body + verhoeff_digit(body)
        if number != number[::-1]:
            return f"{number[:4]} {number[4:8]} {number[8:]}"


def in_pan(rng: random.Random) -> str:
    """An Indian PAN: 3 letters, the holder type, a letter, 4 digits, a check letter."""
    letters = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3))
    return f"{letters}{rng.choice('PCHFAT')}{rng.choice('ABCDEFGH')}{_digits(rng, 4)}Z"


def br_cpf(rng: random.Random) -> str:
    """A Brazilian CPF: 9 digits and two mod-11 check digits, written 000.000.000-00."""
    digits = _digits(rng, 9)
    for size in (9, 10):
        total = sum(int(d) * w for d, w in zip(digits, range(size + 1, 1, -1), strict=True))
        digits += str(total * 10 % 11 % 10)
    return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}"


def ip_address(rng: random.Random) -> str:
    """An IPv4 address of a documentation range, or an IPv6 one."""
    if rng.random() < 0.5:
        return f"203.0.113.{rng.randint(1, 254)}"
    return f"2001:db8:{rng.randint(1, 0xFFFF):x}::{rng.randint(1, 0xFFFF):x}"


MAKERS: dict[str, Callable[[random.Random], str]] = {
    "email": email,
    "card": card,
    "iban": iban,
    "phone": phone,
    "us_ssn": us_ssn,
    "uk_nhs": uk_nhs,
    "uk_nino": uk_nino,
    "fr_nir": fr_nir,
    "in_aadhaar": in_aadhaar,
    "in_pan": in_pan,
    "br_cpf": br_cpf,
    "ip_address": ip_address,
}


def values(seed: int, per_kind: int) -> Iterator[tuple[str, str]]:
    """``per_kind`` values of every kind, as ``(kind, value)``."""
    rng = random.Random(seed)
    for kind, make in MAKERS.items():
        for _ in range(per_kind):
            yield kind, make(rng)


_FULL_WIDTH = str.maketrans("0123456789-", "０１２３４５６７８９－")


def spellings(kind: str, value: str) -> dict[str, str]:
    """``value`` as written plainly and in every obfuscated form that fits its kind."""
    forms = {"plain": value}
    if kind == "email":
        local, domain = value.split("@")
        forms["at_brackets"] = f"{local} [at] {domain.replace('.', ' [dot] ')}"
        forms["at_words"] = f"{local} at {domain.replace('.', ' dot ')}"
        forms["at_parens"] = f"{local}(at){domain}"
        forms["percent"] = f"{local}%40{domain}"
        forms["percent_twice"] = f"{local}%2540{domain}"
        forms["html_entity"] = f"{local}&#64;{domain}"
        forms["backslash_u"] = f"{local}\\u0040{domain}"
        forms["full_width_at"] = f"{local}＠{domain}"
    elif kind == "ip_address":
        forms["percent"] = "".join(f"%{ord(c):02X}" if c in ".:" else c for c in value)
    else:
        forms["nbsp"] = value.replace(" ", "\u00a0")
        forms["narrow_nbsp"] = value.replace(" ", "\u202f")
        forms["thin_space"] = value.replace(" ", "\u2009")
        if kind not in ("iban", "uk_nino"):  # written with spaces, never hyphens
            forms["unicode_hyphen"] = value.replace(" ", "\u2011").replace("-", "\u2010")
        forms["full_width"] = value.translate(_FULL_WIDTH)
        forms["zero_width"] = "\u200b".join(value)
        if kind not in ("in_pan", "uk_nino", "iban"):  # numbers glued to a word
            forms["glued"] = f"ref{value}x"
        forms["percent_digits"] = "".join(f"%{ord(c):02X}" if c.isdigit() else c for c in value)
    forms["base64_in_text"] = (
        "payload " + base64.b64encode(f"holder: {value}".encode()).decode() + " end"
    )
    return forms


def split_groups(value: str) -> list[str] | None:
    """The digit groups of a number written in groups (for a JSON array), or None."""
    groups = value.replace("-", " ").replace(".", " ").split()
    return groups if len(groups) > 1 and all(g.isdigit() for g in groups) else None


def raw_forms(value: str, written: str) -> set[str]:
    """What must not be stored: the value as written, plainly, and without separators."""
    compact = "".join(c for c in value if c.isalnum())
    forms = {written, value}
    if len(compact) >= 8:
        forms.add(compact)
    if "@" in value:
        forms.add(value.split("@")[0])
    return forms
