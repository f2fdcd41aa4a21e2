r"""Base64 in a text: the whole text (how the decoders keep OTLP ``bytesValue``) or runs in it.

Percent-encoding, ``\u`` escapes and character references are decoded by ``folding`` (which
maps matches back to where they were written); base64 is probed here: the tokeniser decodes
base64 texts, and base64 runs inside longer texts, and scans what they hold
(``pii.Tokeniser.redact``).
"""

import base64
import re

from eval_pipeline.traces.redact.engines import compile_re2, occurs

_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
RUN = 16
"""Characters of the shortest base64 run probed inside a longer text (12 bytes)."""
_RUN_RE2 = compile_re2(rf"[A-Za-z0-9+/]{{{RUN}}}")
_RUN = re.compile(rf"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{{{RUN},}}={{0,2}}(?![A-Za-z0-9+/=])")


def base64_form(text: str) -> bool:
    """True when ``text`` can be base64 of a text (12 characters or more, padded)."""
    return len(text) >= 12 and len(text) % 4 == 0 and _BASE64.fullmatch(text) is not None


def base64_runs(text: str, data: bytes | None = None) -> list[tuple[int, int]]:
    """The spans of ``text`` that can be base64 of a text (sorted).

    The whole ``text`` when it is (``base64_form``), else runs of ``RUN`` or more base64
    characters, padded, mixing upper and lower case (a long word is not base64).
    ``data``: ``text`` as ASCII bytes, when ``engines.ascii_bytes`` gave them (RE2 then
    decides first whether any run is there).
    """
    if base64_form(text):
        return [(0, len(text))]
    if len(text) < RUN or (data is not None and not occurs(_RUN_RE2, data)):
        return []
    return [
        match.span()
        for match in _RUN.finditer(text)
        if len(match.group()) % 4 == 0 and _mixed_case(match.group())
    ]


def _mixed_case(run: str) -> bool:
    """True when ``run`` has upper- and lower-case letters (base64 of text nearly always)."""
    return run.lower() != run and run.upper() != run


def base64_text(text: str) -> str | None:
    """The UTF-8 text ``text`` is the base64 of (``base64_form`` known), or None."""
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
        return None
