"""A stand-in agent to evaluate: replace ``answer`` with a call into your own agent.

``eval-pipeline run --runner python:agent:run_item`` calls ``run_item(item, context)`` once per
dataset item x run. The agent must record its work as OpenTelemetry GenAI spans with
``context.tracer``: an ``invoke_agent`` root carrying the eval context (which item and run this
is), a ``chat`` span per model call (messages and token counts) and an ``execute_tool`` span per
tool call (arguments, result, and an error status when the tool fails). The scorers read those
spans, nothing else. This stand-in answers weather questions from a table; asked about a city
it does not know, its tool fails ("unknown city: ...") and the run shows that error.
"""

import json
import re
from typing import Any

from opentelemetry.trace import Status, StatusCode, Tracer

from eval_pipeline.traces import eval_context

AGENT = "weather_agent"
MODEL = "stand-in-model"
WEATHER = {
    "london": "cloudy, 15°C",
    "paris": "sunny, 22°C",
    "tokyo": "rainy, 18°C",
    "lima": "overcast, 19°C",
    "oslo": "snowing, -3°C",
    "cairo": "clear, 31°C",
}


def get_weather(city: str) -> str:
    """The tool: the weather in ``city``, or a ``LookupError`` for a city it does not know."""
    found = WEATHER.get(city.lower())
    if found is None:
        raise LookupError(f"unknown city: {city.lower()}")
    return found


def _city(question: str) -> str:
    """The city a question asks about: the last capitalised word (a stand-in for a model)."""
    words = re.findall(r"[A-Z][a-z]+", question)
    return words[-1] if words else question.strip()


def _messages(role: str, **part: Any) -> str:
    return json.dumps([{"role": role, "parts": [part]}])


def answer(question: str, tracer: Tracer, root_attributes: dict[str, Any]) -> str:
    """Answer ``question``, recording the run as GenAI spans under one ``invoke_agent`` span."""
    root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": AGENT, **root_attributes}
    with tracer.start_as_current_span(f"invoke_agent {AGENT}", attributes=root):
        city = _city(question)
        call = {"type": "tool_call", "id": "call-1", "name": "get_weather"}
        with tracer.start_as_current_span(f"chat {MODEL}") as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": MODEL,
                    "gen_ai.input.messages": _messages("user", type="text", content=question),
                    "gen_ai.output.messages": _messages(
                        "assistant", **call, arguments={"city": city}
                    ),
                    "gen_ai.usage.input_tokens": len(question.split()) + 40,
                    "gen_ai.usage.output_tokens": 12,
                }
            )
        with tracer.start_as_current_span("execute_tool get_weather") as tool:
            tool.set_attributes(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "get_weather",
                    "gen_ai.tool.call.id": "call-1",
                    "gen_ai.tool.call.arguments": json.dumps({"city": city}),
                }
            )
            try:
                weather = get_weather(city)
                tool.set_attribute("gen_ai.tool.call.result", json.dumps(weather))
                reply = f"The weather in {city} is {weather}."
            except LookupError as exc:
                tool.set_status(Status(StatusCode.ERROR, str(exc)))
                tool.set_attribute("error.type", type(exc).__name__)
                reply = f"Sorry, I could not find the weather for {city}."
        with tracer.start_as_current_span(f"chat {MODEL}") as chat:
            chat.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": MODEL,
                    "gen_ai.output.messages": _messages("assistant", type="text", content=reply),
                    "gen_ai.usage.input_tokens": 60,
                    "gen_ai.usage.output_tokens": len(reply.split()),
                }
            )
    return reply


def run_item(item: Any, context: Any) -> str:
    """The runner's entry point: one run of one dataset item (``item.user_input`` is the ask)."""
    attributes = eval_context.to_attributes(context.eval_context)
    return answer(item.user_input, context.tracer, attributes)
