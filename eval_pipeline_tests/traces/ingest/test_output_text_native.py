"""The C ``output_text`` (``_genai.c``) equals its Python reference, and takes the common shapes.

Hypothesis draws output-message values from the shapes producers send and the odd ones around
them (reprs with escapes, other field orders, padding; extra keys; tool-call responses; odd
roles, names and types; texts that are not a JSON array) and holds the native step's result,
drops, replacements and handed-on tool calls equal to ``output_text_reference``'s under both
shipped policies. A declined value must leave everything untouched (the reference then runs).
The C code takes orjson's reading of a JSON text when it holds no float: that orjson then reads
the text as the standard scanner does (or refuses it) is checked here too.
"""

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.ingest import output_messages
from eval_pipeline.traces.redact.redactor import Redactor, load_policy

NATIVE = output_messages._native_text
REDACTORS = {name: Redactor(load_policy(name)) for name in ("default", "keep-tools")}

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the _genai extension is not built")

_TEXTS = st.sampled_from(
    [
        "",
        " ",
        "hello",
        "  padded  ",
        "mail me at jane.doe@example.com",
        "card 4111 1111 1111 1111 please",
        "call +44 20 7946 0958",
        "jane%40example.com",
        "It's cloudy with 15°C",
        'say "null"\n\t\\ \x01 😀',
        "lone \ud800 surrogate",
        "ResponseFunctionToolCall(",
        "ResponseFunctionToolCall()",
        "ResponseFunctionToolCall(arguments='x')",
    ]
)
_NAMES = st.sampled_from(["get_weather", "send_email", "x@y.org", "a'b", "é"])
_IDS = st.sampled_from(["call_1", "c=2", "c'3", "a@b.io", ""])
_ARGUMENTS = st.sampled_from(['{"city":"c1"}', '{"to":"a@b.io"}', "", "[1, 2]", "not json", "\\n"])


@st.composite
def _repr(draw: st.DrawFn) -> str:
    arguments, call_id, name = draw(_ARGUMENTS), draw(_IDS), draw(_NAMES)
    fields = [f"arguments={arguments!r}", f"call_id={call_id!r}", f"name={name!r}"]
    if draw(st.booleans()):
        fields = draw(st.permutations(fields))
    tail = draw(st.sampled_from(["", ", type='function_call'", ", status=None"]))
    text = f"ResponseFunctionToolCall({', '.join(fields)}{tail})"
    return draw(st.sampled_from(["", " ", "\n"])) + text + draw(st.sampled_from(["", " "]))


_VALUES = st.one_of(st.none(), st.integers(-3, 3), st.just(2**70), st.booleans(), _TEXTS)


@st.composite
def _part(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["text", "repr", "tool_call", "response", "odd", "extra"]))
    if kind == "text":
        return {"type": "text", "content": draw(_TEXTS)}
    if kind == "repr":
        part: dict[str, Any] = {"type": "text", "content": draw(_repr())}
        if draw(st.booleans()):
            part = {"content": part["content"], "type": "text"}
        return part
    if kind == "tool_call":
        arguments = draw(st.one_of(st.none(), _ARGUMENTS, st.just({"to": "a@b.io"})))
        return {"type": "tool_call", "id": draw(_IDS), "name": draw(_NAMES), "arguments": arguments}
    if kind == "response":
        return {"type": "tool_call_response", "id": draw(_IDS), "response": draw(_TEXTS)}
    if kind == "extra":
        return {"type": "text", "content": draw(_TEXTS), draw(_NAMES): draw(_VALUES)}
    return draw(
        st.one_of(
            _VALUES,
            st.just({"type": "text", "text": "hi a@b.io"}),
            st.just({"type": "text", "content": 7}),
            st.just({"type": 1, "content": "x"}),
            st.just({"content": "x"}),
        )
    )


@st.composite
def _message(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 20)) == 0:
        return draw(_VALUES)
    message: dict[str, Any] = {
        "role": draw(st.sampled_from(["assistant", "tool", "", 3])),
        "parts": draw(st.lists(_part(), max_size=3)),
    }
    if draw(st.booleans()):
        message["name"] = draw(st.one_of(st.none(), _NAMES, st.just(5)))
    if draw(st.booleans()):
        message["finish_reason"] = draw(st.one_of(st.none(), st.just("stop"), st.just(1)))
    if draw(st.integers(0, 10)) == 0:
        message = {"parts": message["parts"], **message}
    return message


@st.composite
def _value(draw: st.DrawFn) -> Any:
    messages = draw(st.lists(_message(), max_size=3))
    text = json.dumps(messages, ensure_ascii=draw(st.booleans()))
    shape = draw(st.integers(0, 12))
    if shape == 0:
        return messages  # not text
    if shape == 1:
        return f" {text}\n"
    if shape == 2:
        return text[:-1]
    if shape == 3:
        return json.dumps({"role": "assistant", "parts": []})
    return text


def _run(step: Any, value: Any, redactor: Redactor) -> tuple[Any, ...]:
    dropped: set[str] = {"before"}
    found: list[str] = ["before"]
    calls: dict[str, Any] = {}
    if step is NATIVE:
        text = NATIVE(value, output_messages.native_hooks(redactor), dropped, found, calls)
    else:
        text = step(value, redactor, dropped, found, calls)
    return text, dropped, found, calls


@settings(max_examples=400, deadline=None)
@given(value=_value(), policy=st.sampled_from(sorted(REDACTORS)))
def test_the_native_step_equals_the_reference(value: Any, policy: str) -> None:
    redactor = REDACTORS[policy]
    native = _run(NATIVE, value, redactor)
    reference = _run(output_messages.output_text_reference, value, redactor)
    if native[0] is None:
        assert native[1:] == ({"before"}, ["before"], {})  # declined: nothing touched
    else:
        assert native == reference
    assert _run(output_messages.output_text, value, redactor) == reference


@pytest.mark.parametrize("policy", sorted(REDACTORS))
def test_the_common_shapes_are_taken_natively(policy: str) -> None:
    call = (
        "ResponseFunctionToolCall(arguments='{\"city\":\"c1\"}', call_id='call_1_1', "
        "name='get_weather', type='function_call')"
    )
    value = json.dumps(
        [
            {"role": "assistant", "parts": [{"type": "text", "content": call}]},
            {"role": "assistant", "parts": [{"type": "text", "content": "mail a@b.io"}]},
        ]
    )
    redactor = REDACTORS[policy]
    native = _run(NATIVE, value, redactor)
    assert native[0] is not None
    assert native == _run(output_messages.output_text_reference, value, redactor)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.text()
    | st.integers()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=10,
)


def _holds_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, list):
        return any(map(_holds_float, value))
    if isinstance(value, dict):
        return any(map(_holds_float, value.values()))
    return False


@settings(max_examples=500, deadline=None)
@given(
    value=st.lists(_JSON, max_size=3),
    ensure_ascii=st.booleans(),
    indent=st.none() | st.integers(0, 2),
)
def test_orjson_reads_json_without_floats_as_the_scanner_does(
    value: Any, ensure_ascii: bool, indent: int | None
) -> None:
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    scanned, end = output_messages._scan(text, 0)
    assert end == len(text)
    try:
        fast = orjson.loads(text)
    except orjson.JSONDecodeError:
        return  # refused (a lone surrogate): the C code then uses the scanner
    if _holds_float(fast):
        return  # a float (or an integer beyond 64 bits read as one): the scanner decides
    assert fast == scanned
    assert repr(fast) == repr(scanned)


@pytest.mark.parametrize("number", [2**70, -(2**64), 2**64 - 1, 1.5, 1e300, -0.0, 7])
@pytest.mark.parametrize("policy", sorted(REDACTORS))
def test_numbers_are_read_as_the_standard_scanner_reads_them(number: Any, policy: str) -> None:
    value = json.dumps(
        [{"role": "assistant", "parts": [{"type": "text", "content": "x", "n": number}]}]
    )
    redactor = REDACTORS[policy]
    assert _run(NATIVE, value, redactor) == _run(
        output_messages.output_text_reference, value, redactor
    )
