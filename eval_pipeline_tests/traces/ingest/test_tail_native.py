"""The C GenAI tail (``_genai.tail``) equals its Python reference, and takes the common span.

Hypothesis draws a span's attributes (lifted and not) from what producers send and the odd
values around it (aliased or missing operations, non-str names, token counts as text, tool
payloads under both shipped policies, input histories and output messages with personal
data, structural and audit attributes, other dialects' markers, schema URLs) and holds the
native tail, the attributes it changed in place and the tool calls it handed on equal to
``genai_tail_reference``'s. A declined span must be left untouched (the reference then runs).
"""

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.ingest import genai_row, span_rows
from eval_pipeline.traces.normalise.messages import clear_parse_cache
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline_tests.traces.ingest.test_output_text_native import _value as _outputs

NATIVE = genai_row._native_tail
REDACTORS = {name: Redactor(load_policy(name)) for name in ("default", "keep-tools")}

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the _genai extension is not built")

_TEXTS = st.sampled_from(["", "hello", "mail jane@example.com", "ssn 123-45-6789", "c=1"])
_STRINGS = st.one_of(st.none(), _TEXTS, st.sampled_from(["get_weather", "x@y.org", "WeatherAgent"]))
_ODD_VALUES = st.one_of(st.integers(-2, 10**7), st.booleans(), st.floats(0, 2), st.just([1, "a"]))


def _mostly(common: Any, odd: Any = _ODD_VALUES) -> Any:
    """Now and then an odd value: most spans stay on the common shape the C code takes."""
    return st.integers(0, 9).flatmap(lambda n: odd if n == 0 else common)


def _history(texts: list[str]) -> str:
    return json.dumps([{"role": "user", "parts": [{"type": "text", "content": t}]} for t in texts])


_LIFTED_VALUES: dict[str, Any] = {
    "gen_ai.operation.name": _mostly(
        st.sampled_from(["chat", "execute_tool", "invoke_agent"]),
        st.sampled_from(["tool", "agent", "made_up", "", "chat", "execute_tool"]) | _ODD_VALUES,
    ),
    "gen_ai.agent.name": _mostly(st.one_of(_STRINGS)),
    "gen_ai.tool.name": _mostly(st.one_of(_STRINGS, st.just(""))),
    "gen_ai.tool.call.id": _mostly(st.one_of(_STRINGS)),
    "gen_ai.provider.name": _mostly(st.one_of(st.sampled_from(["openai", "a@b.io"]))),
    "gen_ai.usage.input_tokens": _mostly(st.integers(0, 99), st.just("12") | _ODD_VALUES),
    "gen_ai.usage.output_tokens": st.one_of(st.integers(0, 99), st.none(), st.just(True)),
    "gen_ai.conversation.id": _mostly(st.one_of(_STRINGS)),
    "gen_ai.tool.call.arguments": _mostly(
        st.sampled_from(['{"city":"c1"}', '{"to":"a@b.io"}', "plain a@b.io", " [1] "])
    ),
    "gen_ai.tool.call.result": _mostly(st.one_of(st.sampled_from(["It's 15°C", '{"ok":true}']))),
    "gen_ai.input.messages": _mostly(
        st.lists(_TEXTS, max_size=2).map(_history), st.just("not json") | _ODD_VALUES
    ),
    "gen_ai.output.messages": _mostly(st.one_of(_outputs())),
    "gen_ai.system": st.just("openai"),
    "gen_ai.prompt": st.just("hi"),
}
_ATTRIBUTE_KEYS = st.sampled_from(
    [
        "gen_ai.request.model",
        "gen_ai.response.model",
        "gen_ai.response.id",
        "server.address",
        "eval_pipeline.note",
        "eval_pipeline.redaction.policy",
        "user.comment",
        "openinference.span.kind",
        "gen_ai.usage.prompt_tokens",
    ]
)
_ATTRIBUTE_VALUES = st.one_of(
    _STRINGS,
    _mostly(st.just("gpt-4.1")),
    st.sampled_from(
        ["gpt-4.1", "a b", "x" * 300, "é-1", "_x", "ssn 123-45-6789", "id:123-45-6789"]
    ),
    st.lists(st.sampled_from(["id-1", "a@b.io"]), max_size=2),
    st.just({"to": "a@b.io"}),
)
_URLS = st.sampled_from(
    [
        (None, None),
        ("https://opentelemetry.io/schemas/1.30.0", None),
        (None, "https://opentelemetry.io/schemas/1.37.0"),
        ("", "https://example.com/schema"),
    ]
)


@st.composite
def _span(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    common = ["gen_ai.operation.name", "gen_ai.input.messages", "gen_ai.output.messages"]
    keys = draw(st.lists(st.sampled_from(sorted(_LIFTED_VALUES)), unique=True, max_size=6))
    if draw(st.integers(0, 4)):
        keys = list(dict.fromkeys(common + keys))
    if draw(st.integers(0, 5)):
        keys = [k for k in keys if k not in ("gen_ai.system", "gen_ai.prompt")]
    lifted = {key: draw(_LIFTED_VALUES[key]) for key in keys}
    attrs = draw(st.dictionaries(_ATTRIBUTE_KEYS, _ATTRIBUTE_VALUES, max_size=3))
    if draw(st.integers(0, 5)):
        attrs.pop("openinference.span.kind", None)
        attrs.pop("gen_ai.usage.prompt_tokens", None)
    return lifted, attrs


def _run(native: bool, lifted: dict[str, Any], attrs: dict[str, Any], policy: str, urls: Any):
    clear_parse_cache()
    redactor = REDACTORS[policy]
    lifted, attrs = copy.deepcopy(lifted), copy.deepcopy(attrs)
    calls: dict[str, Any] = {}
    resource, scope = {"service.name": "s"}, "scope"
    if native:
        hooks = genai_row.tail_hooks(redactor)
        tail = NATIVE(attrs, lifted, resource, scope, hooks, calls, urls)
    else:
        tail = genai_row.genai_tail_reference(
            "chat gpt", attrs, lifted, resource, scope, redactor, calls, urls
        )
    return tail, attrs, calls


@settings(max_examples=1000, deadline=None)
@given(span=_span(), policy=st.sampled_from(sorted(REDACTORS)), urls=_URLS)
def test_the_native_tail_equals_the_reference(span: Any, policy: str, urls: Any) -> None:
    lifted, attrs = span
    native = _run(True, lifted, attrs, policy, urls)
    reference = _run(False, lifted, attrs, policy, urls)
    if native[0] is None:
        assert native[1:] == (attrs, {})  # declined: nothing touched
    else:
        assert native == reference
        assert [type(v) for v in native[0]] == [type(v) for v in reference[0]]


@pytest.mark.parametrize("policy", sorted(REDACTORS))
def test_the_common_spans_are_taken_natively(policy: str) -> None:
    call = (
        "ResponseFunctionToolCall(arguments='{\"city\":\"c1\"}', call_id='call_1_1', "
        "name='get_weather', type='function_call')"
    )
    history = _history(["Mail me at user1@example.com"])
    spans = [
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.input.messages": history},
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.usage.input_tokens": 73,
            "gen_ai.input.messages": history,
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": call}]}]
            ),
        },
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.arguments": '{"city":"c1"}',
            "gen_ai.tool.call.result": "It's cloudy",
        },
    ]
    for lifted in spans:
        attrs = {"gen_ai.request.model": "gpt-4.1"}
        native = _run(True, lifted, attrs, policy, (None, None))
        assert native[0] is not None
        assert native == _run(False, lifted, attrs, policy, (None, None))


_HEADS = st.tuples(
    st.just("0" * 31 + "1"),
    st.just("0" * 15 + "2"),
    st.none() | st.just("0" * 15 + "1"),
    st.sampled_from(["chat gpt-4.1", "execute_tool get_weather"]),
    st.just("internal"),
    st.integers(0, 10),
    st.integers(10, 20),
    st.just("unset"),
    st.none(),
)


@settings(max_examples=300, deadline=None)
@given(
    span=_span(),
    head=_HEADS,
    state=st.none() | st.just("k=v"),
    policy=st.sampled_from(sorted(REDACTORS)),
    urls=_URLS,
)
def test_the_native_wire_row_equals_the_reference(
    span: Any, head: Any, state: Any, policy: str, urls: Any
) -> None:
    lifted, attrs = span
    redactor = REDACTORS[policy]
    results = []
    for native in (True, False):
        clear_parse_cache()
        wire = (head, copy.deepcopy(attrs), copy.deepcopy(lifted), None, state)
        calls: dict[str, Any] = {}
        if native:
            hooks = genai_row.tail_hooks(redactor)
            row = genai_row._genai.wire_row(wire, {}, "scope", hooks, calls, urls)
            if row is None:
                assert wire[1] == attrs and calls == {}  # declined: nothing touched
                return
        else:
            with pytest.MonkeyPatch.context() as patched:
                patched.setattr(genai_row, "_native_tail", None)
                row = span_rows.wire_row(wire, {}, "scope", 1 << 20, redactor, calls, urls)
        results.append((row, calls))
    assert results[0] == results[1]


@settings(max_examples=200, deadline=None)
@given(
    spans=st.lists(st.tuples(_span(), _HEADS), max_size=5),
    start=st.integers(0, 2),
    policy=st.sampled_from(sorted(REDACTORS)),
)
def test_wire_rows_is_wire_row_for_each_span_until_one_is_declined(
    spans: Any, start: int, policy: str
) -> None:
    hooks = genai_row.tail_hooks(REDACTORS[policy])
    results = []
    for one_by_one in (False, True):
        clear_parse_cache()
        wire = [
            (head, copy.deepcopy(a), copy.deepcopy(lifted), None, None)
            for (lifted, a), head in spans
        ]
        calls: dict[str, Any] = {}
        rows: list[Any] = [("before",)]
        if one_by_one:
            index = start
            while index < len(wire):
                row = genai_row._genai.wire_row(wire[index], {}, "s", hooks, calls, (None, None))
                if row is None:
                    break
                rows.append(row)
                index += 1
        else:
            index = genai_row._genai.wire_rows(
                wire, start, {}, "s", hooks, calls, (None, None), rows
            )
        results.append((index, rows, calls, wire))
    assert results[0] == results[1]


def test_a_span_nested_too_deep_is_rejected_between_the_rows_of_the_others() -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans

    from eval_pipeline.benchmarks.ingest import _trace
    from eval_pipeline.traces.ingest import fast_path

    spans = _trace(1)
    for kv in spans[1].attributes:
        if kv.key == "gen_ai.input.messages":
            kv.value.string_value = "[" * 100_000 + "]" * 100_000
    payload = ExportTraceServiceRequest(
        resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=spans)])]
    ).SerializeToString()
    batches = []
    for native in (fast_path._native_wire_rows, None):
        clear_parse_cache()
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(fast_path, "_native_wire_rows", native)
            batch = fast_path.decode_rows(payload, "t", 1 << 22, Redactor(load_policy("default")))
        assert batch is not None
        batches.append((batch.rows, [str(e) for e in batch.errors], batch.tool_calls))
    assert batches[0] == batches[1]
    rows, errors, _ = batches[0]
    assert len(rows) == len(spans) - 1 and len(errors) == 1 and "too deep" in errors[0]
