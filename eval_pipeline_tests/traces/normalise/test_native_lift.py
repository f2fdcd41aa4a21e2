"""The C lift (``_lift``) normalises exactly as the Python lift, its reference.

For raw spans whose attributes mix every lifted GenAI name, the names that decline a span
(other dialects' markers, renamed and removed names), unknown names, and values of every JSON
type (message texts in many shapes among them, with repr'd tool calls plain, escaped or
padded), ``_lift.lift_into`` either declines and leaves the state untouched, or fills it with
exactly what ``normaliser._lifted`` gives (compared by ``repr`` too, so ``1``, ``1.0`` and
``True`` and dictionary orders are told apart), its input histories memoised as
``parse_messages`` memoises them. ``_lift.parse`` and ``_lift.output_messages`` are held equal
to ``messages._parse`` and ``messages.parse_output_messages`` the same way. The plain spans of
the benchmark and of the OTLP samples are taken by the C lift.
"""

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.benchmarks.ingest import make_payload
from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF, decode_otlp
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.normalise import genai, messages, native_lift
from eval_pipeline.traces.normalise.messages import clear_parse_cache, parse_output_messages
from eval_pipeline.traces.normalise.normaliser import _lifted, normalise_span
from eval_pipeline.traces.span_factory import RAW_DEFAULTS, span_from_state
from eval_pipeline_tests.traces.builders import OTEL


def test_extension_is_built() -> None:
    assert native_lift.lift_into is not None and native_lift.output_messages is not None


_REPR_CALLS = (
    "ResponseFunctionToolCall(arguments='{\"city\":\"Paris\"}', call_id='call_1', "
    "name='get_weather', type='function_call')",
    "ResponseFunctionToolCall(arguments='[1, 2]', call_id='c', name='n')",
    "ResponseFunctionToolCall(arguments='not json', call_id='', name='')",
    "ResponseFunctionToolCall(arguments='{}', call_id='a=b', name='x')",
    "ResponseFunctionToolCall(arguments='{\\'q\\': 1}', call_id='c2', name='esc')",
    "ResponseFunctionToolCall(call_id='c3', name='late', arguments='{\"a\": 1}')",
    "ResponseFunctionToolCall(arguments='{\"é\": \"ü\"}', call_id='ç', name='名')",
    "ResponseFunctionToolCall(arguments='{\"x\": 1}', call_id='c4', name='odd\\\\')",
    "ResponseFunctionToolCall(arguments='{\"x\": 1}', call_id='c5', name='n' ",
    "ResponseFunctionToolCall(arguments='{\"x\": 1}', call_id='c6', name='n'",
    "ResponseFunctionToolCall(",
    "ResponseFunctionToolCall()",
    "ResponseFunctionToolCall(arguments=\"{}\", call_id='c7', name='dq')",
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "x", "chat", "execute_tool", "chat_completion", "rerank", " {} "]),
    st.text(max_size=6),
)
_JSON_TEXTS = st.sampled_from(
    ['{"city": "c1"}', "[1, 2]", "{bad", "[]", "{}", ' {"a": 1} ', '{"a": 1} x', "[", "It's"]
)
_CONTENTS = st.one_of(
    st.sampled_from(_REPR_CALLS),
    st.sampled_from(_REPR_CALLS).map(lambda text: f" {text}\n"),
    _SCALARS,
    _JSON_TEXTS,
)


_ROLES = st.sampled_from(["assistant", "user", "tool", "", None, 7])
_NAMES_OF_MESSAGES = st.one_of(st.just("bot"), _SCALARS)
_GENAI_PARTS = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "content": _CONTENTS}),
    st.fixed_dictionaries(
        {
            "type": st.just("tool_call"),
            "id": st.just("c"),
            "name": st.just("f"),
            "arguments": st.one_of(_JSON_TEXTS, _CONTENTS, st.just({"a": 1})),
        }
    ),
)


def _part() -> st.SearchStrategy[Any]:
    keys = st.sampled_from(["content", "text", "arguments", "id", "name", "response", "x"])
    values = st.one_of(_CONTENTS, st.lists(_SCALARS, max_size=2))
    return st.one_of(
        _GENAI_PARTS,
        _GENAI_PARTS,
        st.fixed_dictionaries(
            {"type": st.sampled_from(["text", "tool_call", "tool_call_response", None, 3])},
            optional={"content": _CONTENTS, "text": _CONTENTS, "arguments": _CONTENTS},
        ),
        st.dictionaries(keys, values, max_size=3),
        _SCALARS,
    )


_GENAI_MESSAGE = st.fixed_dictionaries(
    {"role": _ROLES, "parts": st.lists(_part(), min_size=1, max_size=3)},
    optional={
        "name": _NAMES_OF_MESSAGES,
        "finish_reason": st.one_of(st.none(), st.just("stop"), st.integers(0, 1)),
    },
)


def _message() -> st.SearchStrategy[Any]:
    return st.one_of(
        _GENAI_MESSAGE,
        _GENAI_MESSAGE,
        st.fixed_dictionaries(
            {},
            optional={
                "role": _ROLES,
                "parts": st.one_of(st.lists(_part(), max_size=3), _SCALARS),
                "content": st.one_of(_CONTENTS, st.lists(_part(), max_size=2)),
                "name": _NAMES_OF_MESSAGES,
                "finish_reason": st.one_of(st.none(), st.just("stop"), st.integers(0, 1)),
                "tool_calls": st.just([{"id": "t", "function": {"name": "f", "arguments": "{}"}}]),
                "tool_call_id": st.just("t"),
            },
        ),
        _SCALARS,
    )


@st.composite
def _texts(draw: st.DrawFn, values: st.SearchStrategy[Any]) -> str:
    """A drawn value as JSON text: as sent, padded, cut short, or ASCII-escaped."""
    value = draw(values)
    text = json.dumps(value, ensure_ascii=False)
    variants = (text, f" {text}", f"{text}\n", text[:-1], json.dumps(value))
    return variants[draw(st.integers(0, len(variants) - 1))]


_MESSAGE_VALUES = st.one_of(
    _texts(st.lists(_message(), min_size=1, max_size=3)),
    _texts(st.lists(_message(), min_size=1, max_size=3)),
    _texts(_message()),
    st.lists(_message(), max_size=2),
    _CONTENTS,
)


def _same(native: Any, python: Any) -> None:
    assert native == python
    assert repr(native) == repr(python)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_MESSAGE_VALUES, st.sampled_from(["user", "assistant"]))
def test_messages_equal_python(value: Any, role: str) -> None:
    assert native_lift.output_messages is not None and native_lift.parse is not None
    try:
        python = messages._parse(value, role)
    except Exception as exc:  # the C functions must raise the same
        with pytest.raises(type(exc)):
            native_lift.parse(value, role)
        return
    _same(native_lift.parse(value, role), python)
    if role == "assistant":
        _same(native_lift.output_messages(value), parse_output_messages(value))


@pytest.mark.parametrize("content", [*_REPR_CALLS, *(f" {text}" for text in _REPR_CALLS)])
def test_output_message_grid_equals_python(content: str) -> None:
    """Every repr'd call, role, name and finish reason, one message or two, as JSON text."""
    assert native_lift.output_messages is not None and native_lift.parse is not None
    for role in ("assistant", "user", "tool", "", None, 7):
        for extra in ({}, {"name": "bot"}, {"name": 3}, {"finish_reason": "stop"}):
            raw = {"role": role, "parts": [{"type": "text", "content": content}], **extra}
            for value in ([raw], [raw, {"role": "user", "parts": [{"type": "image"}]}, 5]):
                text = json.dumps(value)
                _same(native_lift.output_messages(text), parse_output_messages(text))
                _same(native_lift.parse(text, "user"), messages._parse(text, "user"))


_NAMES = st.sampled_from(
    [*sorted(genai.LIFTED), sc.REQUEST_MODEL, sc.RESPONSE_MODEL, "gen_ai.response.id", "x"]
)
_DECLINING = st.sampled_from(sorted(native_lift.DECLINED))
_VALUES = st.one_of(_SCALARS, _JSON_TEXTS, _MESSAGE_VALUES, st.lists(_SCALARS, max_size=2))


def _common(name: str) -> st.SearchStrategy[Any]:
    """Values as instrumentations send them for ``name`` (most spans are plain)."""
    if name in (sc.INPUT_MESSAGES, sc.OUTPUT_MESSAGES):
        return _texts(st.lists(_message(), min_size=1, max_size=2))
    if name in (sc.USAGE_INPUT_TOKENS, sc.USAGE_OUTPUT_TOKENS):
        return st.integers(0, 100)
    if name == sc.OPERATION_NAME:
        return st.sampled_from(["chat", "execute_tool", "invoke_agent", "rerank", "", "chat "])
    return st.one_of(st.text(max_size=4), _JSON_TEXTS)


@st.composite
def _raw_spans(draw: st.DrawFn) -> Span:
    attributes: dict[str, Any] = {}
    for name in draw(st.lists(_NAMES, max_size=8, unique=True)):
        plain = draw(st.booleans())
        attributes[name] = draw(_common(name) if plain else _VALUES)
    if draw(st.integers(0, 9)) == 0:
        attributes[draw(_DECLINING)] = draw(_SCALARS)
    urls = st.sampled_from([None, "", "https://opentelemetry.io/schemas/1.28.0", "https://x/1"])
    events = () if draw(st.integers(0, 9)) else (genai.SpanEvent("gen_ai.choice", 1, {}),)
    return span_from_state(
        {
            **RAW_DEFAULTS,
            "trace_id": "1" * 32,
            "span_id": "2" * 16,
            "parent_span_id": None,
            "name": draw(st.sampled_from(["chat gpt", "execute_tool x", "weird", ""])),
            "attributes": attributes,
            "events": events,
            "resource": {},
            "schema_url": draw(urls),
            "resource_schema_url": draw(urls),
        }
    )


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_raw_spans())
def test_lift_into_equals_python_lift(span: Span) -> None:
    assert native_lift.lift_into is not None
    before = dict(span.__dict__)
    attributes = dict(span.attributes)
    clear_parse_cache()  # the Python lift parses the input history itself
    python = dict(span.__dict__)
    python.update(_lifted(span))
    clear_parse_cache()
    native = dict(span.__dict__)
    taken = native_lift.lift_into(native)
    assert span.attributes == attributes and span.__dict__ == before  # the raw span untouched
    if not taken:
        assert native == before
        return
    _same(native, python)
    inputs = span.attributes.get(sc.INPUT_MESSAGES)
    if type(inputs) is str:  # a text's history is memoised, as parse_messages memoises it
        again = dict(span.__dict__)
        assert native_lift.lift_into(again)
        assert again["input_messages"] is native["input_messages"]
        assert messages.parse_messages(inputs) is native["input_messages"]
    assert list(native["attributes"]) == list(python["attributes"])
    assert normalise_span(span) == span_from_state(python)


def _raw(payload: bytes, media: str) -> list[Span]:
    decoded = decode_otlp(payload, content_type=media, source="test")
    return decoded.spans


def test_plain_spans_take_the_c_lift() -> None:
    assert native_lift.lift_into is not None
    spans = _raw(make_payload(64), PROTOBUF)
    for span in spans:
        state = dict(span.__dict__)
        assert native_lift.lift_into(state)
        expected = dict(span.__dict__)
        expected.update(_lifted(span))
        _same(state, expected)


@pytest.mark.parametrize("path", sorted(OTEL.rglob("*.otlp.json")), ids=lambda p: p.name)
def test_sample_spans_equal_python_lift(path: Any) -> None:
    assert native_lift.lift_into is not None
    for span in _raw(path.read_bytes(), JSON):
        state = dict(span.__dict__)
        if native_lift.lift_into(state):
            expected = dict(span.__dict__)
            expected.update(_lifted(span))
            _same(state, expected)


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "just text",
        '[{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]',
        '[{"role": "system", "content": "openai style"}, 3]',
        '{"role": "user", "parts": []}',
        [{"role": "user", "parts": [{"type": "text", "content": "a list"}]}],
    ],
    ids=["none", "empty", "text", "genai", "openai", "one", "list"],
)
def test_parse_messages_is_the_memoised_python_one(value: Any) -> None:
    assert native_lift.parse_messages is not None
    clear_parse_cache()
    native = native_lift.parse_messages(value)
    assert native == messages._parse(value, "user") if value is not None else native == ()
    if type(value) is str:  # one cache: each side returns what the other memoised
        assert messages.parse_messages(value) is native
        clear_parse_cache()
        python = messages.parse_messages(value)
        assert native_lift.parse_messages(value) is python
