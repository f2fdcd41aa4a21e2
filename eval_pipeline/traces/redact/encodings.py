r"""The encoded forms of a text a reader decodes: percent-encoding, ``\u`` escapes, base64.

Personal data written ``ada%40example.com`` or ``ada\u0040example.com`` is the same address
to any reader, and the decoders keep OTLP ``bytesValue`` as base64: the tokeniser scans these
decoded forms when the text as written holds nothing (``pii.Tokeniser.redact``).
"""

import base64
import re
from urllib.parse import unquote

_ESCAPED = re.compile(r"%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def has_backslash_u(text: str) -> bool:
    r"""True when ``text`` holds ``\u`` (a one-character search first: it is far cheaper)."""
    return "\\" in text and "\\u" in text


def holds_escape(text: str) -> bool:
    r"""True when ``text`` holds a percent-encoded byte or a ``\u`` escape."""
    return _ESCAPED.search(text) is not None


def unescaped(text: str) -> str:
    r"""``text`` with percent-encoding and ``\u`` escapes decoded (what a reader sees)."""
    if has_backslash_u(text):
        text = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    return unquote(text, errors="replace") if "%" in text else text


def base64_form(text: str) -> bool:
    """True when ``text`` can be base64 of a text (12 characters or more, padded)."""
    return len(text) >= 12 and len(text) % 4 == 0 and _BASE64.fullmatch(text) is not None


def base64_text(text: str) -> str | None:
    """The UTF-8 text ``text`` is the base64 of (``base64_form`` known), or None."""
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
        return None
