"""The tokeniser replaces exactly the accepted matches of each recognizer, in priority order.

Contract (``redact.pii``): ``Tokeniser.redact`` gives, on any generated text, what the plain
definition gives (``_reference`` below: each recognizer's pattern over the whole folded text,
in catalogue order, mapped back to where it was written, a match kept when it overlaps no
kept match and its validator accepts it,
costly validators limited per text), whether the gate splits the text into chunks or not;
tokens are the keyed HMAC of ``KIND:value``.
"""

import hashlib
import hmac
import re

from hypothesis import HealthCheck, given, settings

from eval_pipeline.traces.redact import phones
from eval_pipeline.traces.redact.catalogue import CATALOGUE
from eval_pipeline.traces.redact.folding import fold
from eval_pipeline.traces.redact.gate import Gate
from eval_pipeline.traces.redact.pii import Tokeniser, holds_token, opaque
from eval_pipeline_tests.traces.redact.generated_texts import TEXTS

KEY = b"s" * 32
_SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


def _token(kind: str, value: str) -> str:
    digest = hmac.new(KEY, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()
    return f"[{kind}:{digest[:24]}]"


def _near(text: str, start: int, end: int, words: tuple[str, ...]) -> bool:
    around = text[max(0, start - 48) : end + 48].lower()
    return any(re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", around) for w in words)


def _after(text: str, start: int, words: tuple[str, ...]) -> bool:
    before = text[max(0, start - 24) : start].rstrip(" :=").lower()
    return any(w == before or before.endswith((f" {w}", f"({w}", f"-{w}")) for w in words)


def _reference(written: str) -> tuple[str, tuple[str, ...]]:
    """The redaction of one text by the plain definition (a fresh tokeniser).

    Every recognizer's pattern over the whole folded text (``folding``), each kept match
    mapped back to the span it was read from.
    """
    folded = fold(written)
    text = written if folded is None else folded.text
    digit_run = re.search(r"\d(?:[ ().-]{0,2}\d){6}", text) is not None
    passes = {
        "at_sign": "@" in text,
        "digit_run": digit_run,
        "digits4": bool(re.search(r"\d(?:\D{0,2}\d){3}", text)),
        "non_ascii": "@" in text and not text.isascii(),
    }
    lookups = phones.LOOKUPS_PER_TEXT
    checked: dict[tuple[str, str], str | None] = {}
    taken: list[tuple[int, int, str, str]] = []
    for recognizer in CATALOGUE:
        if not passes[recognizer.needs]:
            continue
        for found in recognizer.pattern.finditer(text):
            start, end, match = found.start(), found.end(), found.group()
            if any(s < end and start < e for s, e, _, _ in taken):
                continue
            if recognizer.context and not _near(text, start, end, recognizer.context):
                continue
            if recognizer.not_after and _after(text, start, recognizer.not_after):
                continue
            bare = recognizer.bare_context
            if bare and match.isdigit() and not _near(text, start, end, bare):
                continue
            if recognizer.unchecked is None:
                value = recognizer.validate(match)
            elif (recognizer.name, match) in checked:
                value = checked[(recognizer.name, match)]
            elif lookups <= 0:
                value = recognizer.unchecked(match)
            else:
                lookups -= 1
                value = checked[(recognizer.name, match)] = recognizer.validate(match)
            if value is not None:
                taken.append((start, end, _token(recognizer.kind, value), recognizer.kind))
    taken.sort()
    if folded is not None:
        taken = [(*folded.original(s, e), token, kind) for s, e, token, kind in taken]
    out, last = [], 0
    for start, end, token, _ in taken:
        out += [written[last:start], token]
        last = end
    return "".join([*out, written[last:]]), tuple(kind for *_, kind in taken)


@_SETTINGS
@given(TEXTS)
def test_tokeniser_redacts_as_the_plain_definition(text: str) -> None:
    text = f"{text} {text}".replace("%", "")  # values repeat; never base64 nor %-escaped
    for gate in (Gate(CATALOGUE), Gate(CATALOGUE, chunk=64)):
        assert Tokeniser(CATALOGUE, KEY, gate).redact(text) == _reference(text)


def test_tokens_are_found_and_read_as_bare_keys() -> None:
    tokeniser = Tokeniser(CATALOGUE, KEY)
    text, kinds = tokeniser.redact("mail ann@example.com, card 4111 1111 1111 1111")
    assert kinds == ("EMAIL", "CARD") and holds_token(text)
    email, card = _token("EMAIL", "ann@example.com"), _token("CARD", "4111111111111111")
    assert text == f"mail {email}, card {card}"
    assert opaque(text) == f"mail {email[7:-1]}, card {card[6:-1]}"
    assert not holds_token("mail [EMAIL:not-a-key]") and opaque("no token") == "no token"


def test_tokens_are_the_keyed_hmac_whatever_the_key_length() -> None:
    # The key pads are hashed once per tokeniser (RFC 2104): a key longer than SHA-256's
    # 64-byte block is hashed first, a shorter one padded with zeros.
    for key in (b"", b"k", b"s" * 32, b"x" * 64, b"y" * 65, bytes(range(200))):
        digest = hmac.new(key, b"EMAIL:ann@example.com", hashlib.sha256).hexdigest()
        assert Tokeniser((), key).token("EMAIL", "ann@example.com") == f"[EMAIL:{digest[:24]}]"
