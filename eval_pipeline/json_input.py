"""Parsing JSON someone handed in: nesting too deep is bad input, not an internal error.

The standard library's parser raises ``RecursionError`` on a document nested deeper than the
interpreter's recursion limit (``[`` repeated 100,000 times is 200 KB): not a ``ValueError``,
so a reader that turned bad JSON into an error naming its file let it out as an internal
error (CLI exit 3). ``loads`` raises it as a ``json.JSONDecodeError`` saying so, which every
such reader already handles (a ``ValueError`` too): the file or body is named, exit 2 or 400.
Every reader of a file, option or body from outside parses through here (the trace decoders
have their own, ``traces.decode``).
"""

import json
from typing import Any

TOO_DEEP = "nested too deep to parse (deeper than the interpreter's recursion limit)"


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``; nesting too deep raises ``json.JSONDecodeError`` (``TOO_DEEP``)."""
    try:
        return json.loads(text)
    except RecursionError:
        # Position 0: the document as a whole is refused (the message says why).
        raise json.JSONDecodeError(TOO_DEEP, text if isinstance(text, str) else "", 0) from None
