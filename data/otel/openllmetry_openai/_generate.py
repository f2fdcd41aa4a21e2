"""Writes this folder's files with OpenLLMetry's real OpenAI instrumentation.

Run with a separate environment holding ``opentelemetry-instrumentation-openai``
(traceloop/openllmetry), ``openai`` 3.57.0, ``opentelemetry-sdk`` and
``opentelemetry-exporter-otlp-proto-common``: ``python data/otel/openllmetry_openai/_generate.py``
writes ``chat_tool_calls_v{instrumentation version}.otlp.*``. Kept here: 0.47.5 (with
``opentelemetry-semantic-conventions-ai`` 0.4.16 and opentelemetry-sdk 1.36.0), the legacy
attribute form; and 0.62.4 (semantic-conventions-ai 0.5.1, sdk 1.45.2), which writes the 1.37+
``gen_ai.input.messages`` / ``gen_ai.output.messages`` instead. The OpenAI API is answered by an
``httpx.MockTransport`` (two recorded-shape chat completions: a tool call, then the answer), so
nothing leaves the machine; the spans are what the instrumentation writes with its defaults
(content captured as the legacy ``gen_ai.prompt.{i}.*`` / ``gen_ai.completion.{i}.*``
attributes). ``encode_spans`` gives the bytes the OTLP exporter POSTs (``.otlp.pb``); the
``.otlp.json`` file is the same request in OTLP/JSON. Trace and span ids are fixed.
"""

import base64
import json
from importlib.metadata import version
from pathlib import Path

import httpx
import openai
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator

HERE = Path(__file__).parent
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
_REPLIES = [
    {
        "id": "chatcmpl-OLL1",
        "object": "chat.completion",
        "created": 1764590000,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_w1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 61, "completion_tokens": 15, "total_tokens": 76},
    },
    {
        "id": "chatcmpl-OLL2",
        "object": "chat.completion",
        "created": 1764590001,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "It is 18°C and sunny in Paris."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 92, "completion_tokens": 11, "total_tokens": 103},
    },
]


class _Ids(IdGenerator):
    def __init__(self) -> None:
        self._span = 0x2000

    def generate_trace_id(self) -> int:
        return 0x0DE11E7A0DE11E7A0DE11E7A0DE10001

    def generate_span_id(self) -> int:
        self._span += 1
        return self._span


def main() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource({"service.name": "weather-bot"}), id_generator=_Ids()
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    replies = iter(_REPLIES)
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=next(replies)))
    client = openai.OpenAI(api_key="sk-test", http_client=httpx.Client(transport=transport))
    messages = [
        {"role": "system", "content": "You answer weather questions."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
    ]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": '{"temp_c": 18}'})
    client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    provider.shutdown()
    request = encode_spans(exporter.get_finished_spans())
    name = f"chat_tool_calls_v{version('opentelemetry-instrumentation-openai')}"
    (HERE / f"{name}.otlp.pb").write_bytes(request.SerializeToString())
    document = MessageToDict(request)
    for rs in document["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:  # OTLP/JSON ids are hex, not protobuf-JSON base64
                        span[key] = base64.b64decode(span[key]).hex()
    (HERE / f"{name}.otlp.json").write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main()
