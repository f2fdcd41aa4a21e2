r"""Decoded forms are scanned beside the plain text, always (issue 30).

Contract (``redact.pii``): a text holding both plain and escaped personal data has every
value replaced: the escaped form (``%40``, ``\u0040``, percent-encoded digits) is the same
value to any reader, so it is scanned whether or not the plain text held something.
"""

import pytest

from eval_pipeline.traces.redact.catalogue import CATALOGUE
from eval_pipeline.traces.redact.pii import Tokeniser

KEY = b"decoded-forms-key"


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("?from=alice@example.com&to=bob%40example.com", "bob"),
        ("?from=alice@example.com&to=bob\\u0040example.com", "bob"),
        ("alice@example.com card %34%31%31%31111111111111", "%34%31"),
        ("card 4111 1111 1111 1111, to=bob%2540example.com", "bob"),
    ],
)
def test_escaped_data_beside_plain_data_is_replaced(text: str, raw: str) -> None:
    redacted, kinds = Tokeniser(CATALOGUE, KEY).redact(text)
    assert raw not in redacted and "alice" not in redacted, redacted
    assert len(kinds) == 2, (redacted, kinds)


def test_the_escaped_and_plain_spellings_of_one_value_give_one_token() -> None:
    tokeniser = Tokeniser(CATALOGUE, KEY)
    plain, _ = tokeniser.redact("bob@example.com")
    redacted, _ = tokeniser.redact("?a=bob@example.com&b=bob%40example.com")
    assert redacted == f"?a={plain}&b={plain}"
