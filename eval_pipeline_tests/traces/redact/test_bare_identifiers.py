"""Bare digit runs are identifiers only beside their context word (NHS, Aadhaar).

Contract (``redact.catalogue``, ``bare_needs_context``): a 10-digit run passes the NHS mod-11
check one time in eleven, a 12-digit run Aadhaar's Verhoeff check one time in ten, so product,
order and account ids in tool arguments would be stored as tokens (and argument checks would
then fail against the reference). Written in the identifier's format (3-3-4, 4-4-4) or beside
one of its context words, the value is replaced as before.
"""

import json

from eval_pipeline.traces.redact.catalogue import CATALOGUE
from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline_tests.traces.redact.pii_values import in_aadhaar, uk_nhs

KEY = b"bare-identifiers-key"
PRODUCT_IDS = ["4579334072", "1421289881", "6117189161", "4947717507"]  # tau-bench item ids


def _tokeniser() -> Tokeniser:
    return Tokeniser(CATALOGUE, KEY)


def test_product_ids_that_pass_the_nhs_check_are_left_in_tool_arguments() -> None:
    arguments = json.dumps({"order_id": "#W4947717", "item_ids": PRODUCT_IDS})
    redacted, kinds = _tokeniser().redact(arguments)
    assert redacted == arguments, (redacted, kinds)


def test_nhs_and_aadhaar_numbers_are_replaced_when_formatted_or_named() -> None:
    import random

    rng = random.Random(7)
    tokeniser = _tokeniser()
    for value in [uk_nhs(rng) for _ in range(20)] + [in_aadhaar(rng) for _ in range(20)]:
        bare = value.replace(" ", "").replace("-", "")
        word = "NHS number" if len(bare) == 10 else "Aadhaar"
        for text in (f"id {value} on file", f"my {word} is {bare}", f"{word}: {bare}"):
            redacted, _ = tokeniser.redact(text)
            assert bare not in redacted.replace(" ", "").replace("-", ""), (text, redacted)
        _, kinds = tokeniser.redact(f"item {bare} shipped")
        # A bare run with no context word is not read as the identifier (a phone recognizer
        # may still take a run that is a valid national phone number).
        assert not {"UK_NHS", "IN_AADHAAR"} & set(kinds), (bare, kinds)
