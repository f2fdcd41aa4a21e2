"""Property: for any GenAI-shaped request, the fast path stores what the general path stores.

``test_fast_path.py`` holds the two ingest paths equal on the data files, the benchmark payload
and hand-made edge spans. Here hypothesis draws whole requests from the space real producers
fill (operations, agents, tools, both message forms, tool-call reprs, tool payloads, usage,
personal data in names, messages, keys and values, odd value types, events, other dialects'
markers, parents, status, several scopes) and checks, in both encodings and under both shipped
redaction policies, that the stored Arrow rows and the errors are the same. Requests are kept
small and the example count moderate so the default suite stays fast.
"""

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.decode.errors import MAX_ATTRIBUTE_BYTES
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF, decode_otlp
from eval_pipeline.traces.ingest.fast_path import decode_json_rows, decode_rows
from eval_pipeline.traces.ingest.span_rows import fast_row
from eval_pipeline.traces.normalise.messages import clear_parse_cache
from eval_pipeline.traces.normalise.normaliser import normalise_spans
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.store.span_table import rows_table, span_row
from eval_pipeline_tests.traces.builders import otlp_protobuf

POLICIES = {name: load_policy(name) for name in ("default", "keep-tools")}

# Texts as they occur: plain words, personal data of each detected kind, escaped forms, ids.
_TEXTS = st.sampled_from(
    [
        "",
        "hello",
        "What is the weather in Paris?",
        "mail me at jane.doe@example.com",
        "card 4111 1111 1111 1111 please",
        "call +44 20 7946 0958",
        "ssn 123-45-6789",
        "iban GB82 WEST 1234 5698 7654 32",
        "jane%40example.com",
        "\\u0040 not an address",
        "call_7Hx9",
        "order 1234567",
        "It's cloudy with 15°C",
    ]
)
_NAMES = st.sampled_from(["get_weather", "send_email", "lookup_order", "x@y.org"])


def _any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_any_value(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [_kv(k, v) for k, v in value.items()]}}
    return {"stringValue": value}


def _kv(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": _any_value(value)}


@st.composite
def _part(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "tool_call", "repr", "tool_call_response"]))
    call_id = draw(st.sampled_from(["c1", "c2", "call_1_3"]))
    if kind == "text":
        return {"type": "text", "content": draw(_TEXTS)}
    if kind == "tool_call":
        arguments = draw(st.sampled_from([{"city": "Paris"}, {"to": "a@b.io"}, '{"n": 1}', None]))
        return {"type": "tool_call", "id": call_id, "name": draw(_NAMES), "arguments": arguments}
    if kind == "repr":
        text = (
            f"ResponseFunctionToolCall(arguments='{{\"city\":\"c1\"}}', call_id='{call_id}', "
            f"name='{draw(_NAMES)}', type='function_call')"
        )
        return {"type": "text", "content": text}
    return {"type": "tool_call_response", "id": call_id, "response": draw(_TEXTS)}


@st.composite
def _messages(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:  # the OpenAI chat form, and plain text
        return draw(
            st.sampled_from(
                [
                    json.dumps([{"role": "assistant", "content": "hi x@y.org", "tool_calls": []}]),
                    "plain text +1 415 555 0100",
                ]
            )
        )
    messages = []
    for _ in range(draw(st.integers(1, 3))):
        message: dict[str, Any] = {
            "role": draw(st.sampled_from(["user", "assistant", "tool", "system"])),
            "parts": draw(st.lists(_part(), max_size=3)),
        }
        if draw(st.booleans()):
            message["name"] = draw(_TEXTS)
        if draw(st.booleans()):
            message["finish_reason"] = draw(st.sampled_from(["stop", "tool_calls"]))
        messages.append(message)
    return json.dumps(messages)


_OPTIONAL_ATTRIBUTES: dict[str, st.SearchStrategy[Any]] = {
    "gen_ai.agent.name": st.one_of(_TEXTS, st.just(True)),
    "gen_ai.tool.name": _NAMES,
    "gen_ai.tool.call.id": st.sampled_from(["c1", "c2", "jane@example.com"]),
    "gen_ai.tool.call.arguments": st.sampled_from(['{"city":"Paris"}', '{"to":"a@b.io"}', "x"]),
    "gen_ai.tool.call.result": _TEXTS,
    "gen_ai.request.model": st.sampled_from(["gpt-4.1", "claude-x"]),
    "gen_ai.response.model": st.sampled_from(["gpt-4.1-2025", "a b@c.io"]),
    "gen_ai.provider.name": st.sampled_from(["openai", "anthropic"]),
    "gen_ai.usage.input_tokens": st.one_of(st.integers(0, 10_000), st.just("12")),
    "gen_ai.usage.output_tokens": st.integers(0, 10_000),
    "gen_ai.conversation.id": st.sampled_from(["conv-1", "user@example.com"]),
    "gen_ai.input.messages": _messages(),
    "gen_ai.output.messages": _messages(),
    "gen_ai.request.temperature": st.floats(0, 2),
    "gen_ai.response.finish_reasons": st.just(["stop"]),
    "user.note": _TEXTS,
    "jane@example.com": st.just("a key holding an address"),
    "app.config": st.just({"mode": "fast", "owner": "x@y.org"}),
    "eval.run.index": st.integers(0, 3),
}
_OFF_PATH_ATTRIBUTES: dict[str, st.SearchStrategy[Any]] = {
    # Renamed keys and other dialects' markers send a span down the general path.
    "gen_ai.system": st.just("openai"),
    "gen_ai.usage.prompt_tokens": st.integers(0, 99),
    "openinference.span.kind": st.just("LLM"),
    "traceloop.span.kind": st.just("tool"),
}
_OPERATIONS = st.sampled_from(
    ["chat", "execute_tool", "invoke_agent", "create_agent", "text_completion", "new_op", None]
)


@st.composite
def _span(draw: st.DrawFn, index: int, parent: str | None, plain: bool) -> dict[str, Any]:
    operation = draw(_OPERATIONS)
    attributes = [] if operation is None else [_kv("gen_ai.operation.name", operation)]
    pool = _OPTIONAL_ATTRIBUTES if plain else {**_OPTIONAL_ATTRIBUTES, **_OFF_PATH_ATTRIBUTES}
    keys = draw(st.lists(st.sampled_from(sorted(pool)), max_size=6, unique=True))
    attributes.extend(_kv(key, draw(pool[key])) for key in keys)
    start = 1_000 + index * 100
    span: dict[str, Any] = {
        "traceId": draw(st.sampled_from(["0af7651916cd43dd8448eb211c80319c", "ab" * 16])),
        "spanId": f"{index + 1:016x}",
        "name": draw(st.sampled_from(["chat gpt-4.1", "execute_tool get_weather", "step x@y.io"])),
        "kind": draw(st.integers(0, 5)),
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(draw(st.sampled_from([0, start + 50]))),
        "attributes": attributes,
    }
    if parent is not None:
        span["parentSpanId"] = parent
    if draw(st.integers(0, 5)) == 0:
        span["status"] = {"code": 2, "message": draw(_TEXTS)}
    if not plain and draw(st.integers(0, 7)) == 0:
        span["events"] = [
            {
                "timeUnixNano": str(start + 1),
                "name": "gen_ai.user.message",
                "attributes": [_kv("content", draw(_TEXTS))],
            }
        ]
    return span


@st.composite
def requests(draw: st.DrawFn, plain: bool = False) -> dict[str, Any]:
    """An OTLP/JSON request document of a few GenAI spans in one or two scopes.

    ``plain``: only spans in the current GenAI conventions, without events (the fast path's).
    """
    spans = [draw(_span(0, None, plain))]
    for index in range(1, draw(st.integers(1, 6))):
        parent = spans[0]["spanId"] if draw(st.booleans()) else None
        spans.append(draw(_span(index, parent, plain)))
    cut = draw(st.integers(0, len(spans)))
    resource = {"attributes": [_kv("service.name", draw(st.sampled_from(["svc", "a@b.io"])))]}
    scopes = [
        {"scope": {"name": name}, "spans": chunk}
        for name, chunk in (("first", spans[:cut]), ("second", spans[cut:]))
        if chunk
    ]
    return {"resourceSpans": [{"resource": resource, "scopeSpans": scopes}]}


def _stored(rows: list[Any]) -> list[dict[str, Any]]:
    return rows_table(rows, ["b"] * len(rows), None).to_pylist()


def _general(payload: bytes, policy: str, media: str) -> tuple[list[dict[str, Any]], list[str]]:
    clear_parse_cache()
    decoded = decode_otlp(payload, content_type=media, source="s")
    redactor = Redactor(POLICIES[policy])
    spans = [redactor.redact(span) for span in normalise_spans(decoded.spans)]
    return _stored([span_row(span) for span in spans]), [str(e) for e in decoded.errors]


def _fast(payload: bytes, policy: str, media: str) -> tuple[list[dict[str, Any]], list[str]]:
    clear_parse_cache()
    decode = decode_rows if media == PROTOBUF else decode_json_rows
    batch = decode(payload, "s", MAX_ATTRIBUTE_BYTES, Redactor(POLICIES[policy]))
    assert batch is not None
    return _stored(batch.rows), [str(e) for e in batch.errors]


@settings(
    max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
@given(requests(), st.sampled_from(sorted(POLICIES)))
def test_any_genai_request_stores_the_same_rows_on_both_paths(
    document: dict[str, Any], policy: str
) -> None:
    for payload, media in ((otlp_protobuf(document), PROTOBUF), (json.dumps(document), JSON)):
        body = payload if isinstance(payload, bytes) else payload.encode()
        fast_rows, fast_errors = _fast(body, policy, media)
        general_rows, general_errors = _general(body, policy, media)
        assert fast_errors == general_errors
        assert fast_rows == general_rows


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(requests(plain=True))
def test_plain_genai_spans_all_take_the_fast_path(document: dict[str, Any]) -> None:
    # Without this, the comparison above could pass with every span on the general path.
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest.FromString(otlp_protobuf(document))
    redactor = Redactor(POLICIES["default"])
    for scope_spans in request.resource_spans[0].scope_spans:
        for span in scope_spans.spans:
            assert fast_row(span, {}, None, MAX_ATTRIBUTE_BYTES, redactor) is not None
