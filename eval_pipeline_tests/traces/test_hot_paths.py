"""Ingestion fast-path contract.

The shortcuts taken on the ingestion hot path give exactly what the general code gives:
the reused C JSON encoder writes the same text as ``json`` (and raises the same errors), the
one-regex reading of the usual ``ResponseFunctionToolCall(...)`` repr equals the general
search, ``json_or_text`` parses exactly what ``json.loads`` parses, stored message JSON equals
the encoding of ``messages_to_json``, the GenAI lift keeps unlifted attributes in their
order, ``write_spans`` with precomputed targets stores what it stores without them, and the
in-place batch forms of normalise and redact equal the copying ones span by span.
"""

import json
import re

import pytest

from eval_pipeline.traces.decode.otlp import JSON, decode_otlp
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.normalise.messages import (
    _searched_tool_call,
    json_or_text,
    messages_to_json,
    tool_call_from_repr,
)
from eval_pipeline.traces.normalise.normaliser import (
    normalise_span,
    normalise_spans,
)
from eval_pipeline.traces.store.json_text import dumps, dumps_many
from eval_pipeline.traces.store.span_table import to_table
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import AGENTS, OTEL, SYNTHETIC

_STANDARD = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_VALUES = [
    {"a": 1, "b": [1.5, None, True, 'é"\n\\'], "c": {"d": float("nan"), "e": float("inf")}},
    "plain \u2028 text",
    1e16,
    -0.0,
    2**70,
    [],
    {},
    (1, "x"),
    {"emoji": "\U0001f600", "ctrl": "\x00\x1f"},
]


def _same_value(text: str, value: object) -> bool:
    # NaN != NaN, so compare the standard encoding of what each text reads back as.
    return _STANDARD.encode(json.loads(text)) == _STANDARD.encode(
        json.loads(_STANDARD.encode(value))
    )


@pytest.mark.parametrize("value", _VALUES, ids=repr)
def test_dumps_writes_the_standard_value(value):
    assert _same_value(dumps(value), value)
    assert [json.loads(t) for t in dumps_many([value, value])] == [json.loads(dumps(value))] * 2


_FLOAT_FREE = [
    {"k": ["s", 1, -(2**63), 2**64 - 1, True, None, {"x": "\x00\x1f\x7f\u2028\ufeff\U0001f600"}]},
    ("a", ("b",)),
    'quote " backslash \\ tab \t',
    {"ünïcode": "é"},
    [2**70],
    {1: "int key"},
    "lone \ud800 surrogate",
    {"null": "null"},
]


@pytest.mark.parametrize("value", _FLOAT_FREE, ids=repr)
def test_dumps_writes_the_standard_text_for_float_free_values(value):
    assert dumps(value) == _STANDARD.encode(value)
    assert dumps_many([value]) == [_STANDARD.encode(value)]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_dumps_keeps_non_finite_floats(value):
    assert dumps({"x": value}) == _STANDARD.encode({"x": value})


def test_dumps_raises_the_standard_errors():
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"a": object()})
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_many([{"a": 1}, {"b": object()}])
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps(loop)


def _reprs() -> list[str]:
    texts = set()
    for path in OTEL.rglob("*.json"):
        for found in re.findall(
            r"ResponseFunctionToolCall\((?:[^()]|\([^()]*\))*\)", path.read_text()
        ):
            texts.add(found.encode().decode("unicode_escape"))
    return sorted(texts)


def test_plain_repr_reading_equals_the_general_search():
    samples = _reprs()
    assert len(samples) >= 5  # the shared OpenAI Agents samples carry these reprs
    samples += [
        "ResponseFunctionToolCall(arguments='{\"q\":1}', call_id='c=1', name='x', type='f')",
        "ResponseFunctionToolCall(arguments='{}', call_id='c1', name='n', type='function_call')",
        "ResponseFunctionToolCall(arguments='[1]', call_id='c', name='n'  )",
        "ResponseFunctionToolCall(arguments='it\\'s', call_id='c', name='n')",
        "ResponseFunctionToolCall(name='n', arguments='{}', call_id='c')",
    ]
    for text in samples:
        assert tool_call_from_repr(text) == _searched_tool_call(text.strip()), text


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1}',
        " [1,2] ",
        '{"a":1} x}',
        "{bad}",
        "[1] [2]",
        '{"a": NaN}',
        "[1e400]",
        "{}",
        "[",
        '["x"]\x0b',
        '{"a":1}}',
        "\ufeff{}",
        "plain",
        "",
    ],
)
def test_json_or_text_parses_exactly_what_json_loads_parses(text):
    stripped = text.strip()
    expected: object = text
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            expected = json.loads(stripped)
        except ValueError:
            expected = text
    assert repr(json_or_text(text)) == repr(expected)


def _normalised():
    spans = []
    for path in [
        AGENTS / "test_recipe_workflow_agent_handoffs_with_function_tools.otlp.json",
        *sorted(SYNTHETIC.glob("*.json")),
    ]:
        spans += normalise_spans(
            decode_otlp(path.read_bytes(), content_type=JSON, source="t").spans
        )
    return spans


def test_stored_message_text_is_the_json_of_messages_to_json():
    spans = _normalised()
    table = to_table(spans, ["b"] * len(spans), None)
    for column in ("input_messages", "output_messages"):
        expected = [_STANDARD.encode(messages_to_json(getattr(s, column))) for s in spans]
        assert table.column(column).to_pylist() == expected
    assert table.column("attributes").to_pylist() == [_STANDARD.encode(s.attributes) for s in spans]


def test_genai_lift_keeps_unlifted_attributes_in_order():
    attributes = {
        "z.first": 1,
        "gen_ai.operation.name": "chat",
        "m.second": "x",
        "gen_ai.usage.prompt_tokens": 7,  # renamed: takes the slower path
        "gen_ai.request.model": "gpt",
        "a.third": True,
    }
    span = Span(
        trace_id="ab" * 16,
        span_id="cd" * 8,
        parent_span_id=None,
        name="chat gpt",
        attributes=attributes,
        convention_version=None,
    )
    lifted = normalise_span(span)
    assert list(lifted.attributes) == ["z.first", "m.second", "gen_ai.request.model", "a.third"]
    assert lifted.input_tokens == 7
    del attributes["gen_ai.usage.prompt_tokens"]
    fast = normalise_span(Span(**{**span.__dict__, "attributes": attributes}))
    assert list(fast.attributes) == ["z.first", "m.second", "gen_ai.request.model", "a.third"]
    assert span.attributes is attributes  # the raw span's mapping is not consumed


def test_write_spans_with_precomputed_targets_stores_the_same(tmp_path):
    spans = _normalised()
    plain, given = TraceStore(tmp_path / "plain"), TraceStore(tmp_path / "given")
    targets = given.builds_for(spans)
    assert given.write_spans(spans, targets=targets) == plain.write_spans(spans)
    assert given.builds() == plain.builds()
    for build in plain.builds():
        assert sorted(given.read_spans(build), key=lambda s: s.span_id) == sorted(
            plain.read_spans(build), key=lambda s: s.span_id
        )
