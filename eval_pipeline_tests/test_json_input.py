"""``json_input.loads``: JSON nested too deep is a ``JSONDecodeError``, as any other bad JSON.

A tool call's arguments are text a traced agent wrote; before the fix, arguments nested
100,000 deep made ``parse_arguments`` raise ``RecursionError`` out of scoring (an internal
error for the whole build). They now read as arguments that are not an object.
"""

import json

import pytest

from eval_pipeline import json_input
from eval_pipeline.scoring.arguments import parse_arguments

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("text", [DEEP, DEEP.encode(), '{"a":' * 100_000 + "1" + "}" * 100_000])
def test_deep_json_is_a_decode_error(text: str | bytes) -> None:
    with pytest.raises(json.JSONDecodeError, match="nested too deep"):
        json_input.loads(text)


def test_ordinary_json_reads_as_the_standard_library_reads_it() -> None:
    text = '{"a": [1, 2.5, "x", null, true]}'
    assert json_input.loads(text) == json.loads(text)
    with pytest.raises(json.JSONDecodeError):
        json_input.loads("{")


def test_deep_tool_arguments_are_not_an_object() -> None:
    assert parse_arguments(DEEP) is None
    assert parse_arguments('{"city": "Paris"}') == {"city": "Paris"}
