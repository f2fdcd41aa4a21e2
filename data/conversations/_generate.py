"""Writes this folder's file with the real OpenTelemetry Python SDK and OTLP encoder.

``PYTHONPATH=. python data/conversations/_generate.py`` (opentelemetry-sdk 1.45.2,
opentelemetry-exporter-otlp-proto-common 1.45.2, as pinned in requirements.lock). The
``.otlp.json`` file is the OTLP/JSON form of the request the OTLP/HTTP exporter would POST
(``encode_spans``). Ids and times are fixed so tests can name turns and judge idle ends.

``support_conversations``: two customer-support conversations, one trace per turn, every
``invoke_agent`` root and ``chat`` span carrying ``gen_ai.conversation.id`` and the turn's
messages in the 1.37+ ``gen_ai.input.messages`` / ``gen_ai.output.messages`` form:

- ``conv-return-7`` (3 turns, 20 s apart from 2026-12-01T10:00:00Z): the user gives an order
  number and an e-mail address, the agent looks the order up and files a return, the user
  thanks it; the last turn's root carries ``eval_pipeline.session.end = "resolved"``.
- ``conv-cancel-9`` (4 turns from 2026-12-01T11:00:00Z, no end marker): the order look-up
  fails (an error span), the agent asks again for the order number the user gave, and the user
  asks to cancel the order three times.
"""

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

from google.protobuf.json_format import MessageToDict
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import SpanKind, Status, StatusCode

HERE = Path(__file__).parent
GENAI_DEV = "https://opentelemetry.io/schemas/gen-ai-dev/1.42.0-dev"
SECOND = 1_000_000_000


class _Ids(IdGenerator):
    """Trace ids set per turn (``next_trace``), span ids counting up."""

    def __init__(self) -> None:
        self.trace_id = 0
        self._span = 0x2000

    def generate_trace_id(self) -> int:
        return self.trace_id

    def generate_span_id(self) -> int:
        self._span += 1
        return self._span


def _text(role: str, text: str) -> list[dict]:
    return [{"role": role, "parts": [{"type": "text", "content": text}]}]


def _turn(tracer, ids, trace_id, conversation, start, question, answer, tool=None, end=None):
    """One turn: root ``invoke_agent``, a ``chat`` span, maybe a tool span and a second chat."""
    ids.trace_id = trace_id
    root_attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "support",
        "gen_ai.conversation.id": conversation,
        "gen_ai.input.messages": json.dumps(_text("user", question)),
        "gen_ai.output.messages": json.dumps(_text("assistant", answer)),
    }
    if end is not None:
        root_attributes["eval_pipeline.session.end"] = end
    root = tracer.start_span("invoke_agent support", start_time=start, attributes=root_attributes)
    with trace.use_span(root, end_on_exit=False):
        first = (
            _text("assistant", answer)
            if tool is None
            else [
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "id": tool["id"],
                            "name": tool["name"],
                            "arguments": tool["arguments"],
                        }
                    ],
                }
            ]
        )
        chat = tracer.start_span(
            "chat gpt-4.1",
            kind=SpanKind.CLIENT,
            start_time=start + SECOND // 10,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4.1",
                "gen_ai.conversation.id": conversation,
                "gen_ai.input.messages": json.dumps(_text("user", question)),
                "gen_ai.output.messages": json.dumps(first),
                "gen_ai.usage.input_tokens": 120,
                "gen_ai.usage.output_tokens": 18,
            },
        )
        chat.end(end_time=start + SECOND)
        if tool is not None:
            call = tracer.start_span(
                f"execute_tool {tool['name']}",
                start_time=start + SECOND,
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": tool["name"],
                    "gen_ai.tool.call.id": tool["id"],
                    "gen_ai.tool.call.arguments": json.dumps(tool["arguments"]),
                    "gen_ai.tool.call.result": json.dumps(tool["result"]),
                },
            )
            if tool.get("error"):
                call.set_attribute("error.type", "ToolError")
                call.set_status(Status(StatusCode.ERROR, tool["error"]))
            call.end(end_time=start + SECOND + SECOND // 2)
            second = tracer.start_span(
                "chat gpt-4.1",
                kind=SpanKind.CLIENT,
                start_time=start + SECOND + SECOND // 2,
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "gpt-4.1",
                    "gen_ai.conversation.id": conversation,
                    "gen_ai.output.messages": json.dumps(_text("assistant", answer)),
                    "gen_ai.usage.input_tokens": 160,
                    "gen_ai.usage.output_tokens": 24,
                },
            )
            second.end(end_time=start + 2 * SECOND)
    root.end(end_time=start + 2 * SECOND + SECOND // 2)


def _at(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()) * SECOND


def support_conversations() -> None:
    ids = _Ids()
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource({"service.name": "support-agent"}), id_generator=ids
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("support_agent", "2.0.0", schema_url=GENAI_DEV)
    order = "#W2378156"
    start = _at("2026-12-01T10:00:00")
    lookup = {
        "id": "call_r1",
        "name": "get_order_details",
        "arguments": {"order_id": order},
        "result": {"order_id": order, "status": "delivered", "items": ["keyboard"]},
    }
    ret = {
        "id": "call_r2",
        "name": "return_delivered_order_items",
        "arguments": {"order_id": order, "item_ids": ["1151293680"]},
        "result": {"status": "return requested"},
    }
    conversation = "conv-return-7"
    _turn(
        tracer,
        ids,
        0xC0A7_0007_0000_0000_0000_0000_0000_0001,
        conversation,
        start,
        f"Hi, I want to return something from order {order}. My email is jane.doe@example.com.",
        f"I found order {order}; it was delivered. Which item would you like to return?",
        lookup,
    )
    _turn(
        tracer,
        ids,
        0xC0A7_0007_0000_0000_0000_0000_0000_0002,
        conversation,
        start + 20 * SECOND,
        "The mechanical keyboard.",
        "Done: the return of the keyboard is requested and the label is on its way by e-mail.",
        ret,
    )
    _turn(
        tracer,
        ids,
        0xC0A7_0007_0000_0000_0000_0000_0000_0003,
        conversation,
        start + 40 * SECOND,
        "Great, thanks!",
        "You're welcome, goodbye!",
        end="resolved",
    )

    cancel = "#W5918442"
    start = _at("2026-12-01T11:00:00")
    failed = {
        "id": "call_c1",
        "name": "get_order_details",
        "arguments": {"order_id": cancel},
        "result": {"error": "order not found"},
        "error": "order not found",
    }
    conversation = "conv-cancel-9"
    _turn(
        tracer,
        ids,
        0xC0A7_0009_0000_0000_0000_0000_0000_0001,
        conversation,
        start,
        f"Can you cancel order {cancel}?",
        "Sorry, something went wrong. Could you give me your order number?",
        failed,
    )
    _turn(
        tracer,
        ids,
        0xC0A7_0009_0000_0000_0000_0000_0000_0002,
        conversation,
        start + 20 * SECOND,
        f"It is {cancel}, as I said.",
        "Thanks. What is your order number, please?",
    )
    _turn(
        tracer,
        ids,
        0xC0A7_0009_0000_0000_0000_0000_0000_0003,
        conversation,
        start + 40 * SECOND,
        f"Can you cancel order {cancel}?",
        "I'm sorry, I cannot find that order.",
    )
    _turn(
        tracer,
        ids,
        0xC0A7_0009_0000_0000_0000_0000_0000_0004,
        conversation,
        start + 60 * SECOND,
        f"can you cancel order {cancel}??",
        "Let me transfer you to a human agent.",
    )
    provider.shutdown()
    request = encode_spans(exporter.get_finished_spans())
    document = MessageToDict(request)
    for rs in document["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:  # OTLP/JSON ids are hex, not protobuf-JSON base64
                        span[key] = base64.b64decode(span[key]).hex()
    (HERE / "support_conversations.otlp.json").write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    support_conversations()
