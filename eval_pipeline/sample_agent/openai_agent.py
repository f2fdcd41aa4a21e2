"""The same two agents driven by a real OpenAI-compatible model (tool-calling loop).

Used instead of the simulator when ``EVAL_PIPELINE_AGENT_BASE_URL`` is set;
``EVAL_PIPELINE_AGENT_MODEL`` picks the model (default: the build's) and
``EVAL_PIPELINE_AGENT_API_KEY`` the key. Tools, database, policy index and span conventions are
the simulator's; times are the wall clock. The build's prompt-level defects (skipped
confirmation, false claims) are left to the model; its wiring defects (renamed arguments,
stale index) apply as configured.
"""

import json
import os
from collections.abc import Callable
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry.trace import Status, StatusCode, Tracer

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.sample_agent.agent import REFUNDS_PROMPT, SUPPORT_PROMPT
from eval_pipeline.sample_agent.builds import BuildConfig
from eval_pipeline.sample_agent.conversation import text_message
from eval_pipeline.sample_agent.retail_db import RetailDB, ToolError
from eval_pipeline.sample_agent.telemetry import Clock, Recorder, as_json
from eval_pipeline.sample_agent.tools import SUPPORT_TOOLS, ToolBox, refunds_tools

MAX_TURNS = 16


def _genai(message: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI chat message in the GenAI structured form."""
    role = message["role"]
    if role == "tool":
        return {
            "role": "tool",
            "parts": [
                {
                    "type": "tool_call_response",
                    "id": message["tool_call_id"],
                    "response": message["content"],
                }
            ],
        }
    parts: list[dict[str, Any]] = []
    if message.get("content"):
        parts.append({"type": "text", "content": message["content"]})
    parts += [
        {
            "type": "tool_call",
            "id": call["id"],
            "name": call["function"]["name"],
            "arguments": json.loads(call["function"]["arguments"] or "{}"),
        }
        for call in message.get("tool_calls") or ()
    ]
    return {"role": role, "parts": parts}


class _Loop:
    def __init__(self, client: Any, model: str, recorder: Recorder, toolbox: ToolBox) -> None:
        self.client, self.model, self.recorder, self.toolbox = client, model, recorder, toolbox

    def run(
        self,
        agent_name: str,
        system: str,
        tools: list[dict[str, Any]],
        user_text: str,
        handoff: Callable[[dict[str, Any]], Any] | None = None,
    ) -> str:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user_text},
        ]
        for _ in range(MAX_TURNS):
            with self.recorder.chat_span(self.model) as span:
                response = self.client.chat.completions.create(
                    model=self.model, messages=messages, tools=tools
                )
                choice = response.choices[0]
                reply = choice.message.model_dump(exclude_none=True)
                usage = response.usage
                self.recorder.chat(
                    span,
                    agent_name=agent_name,
                    model=self.model,
                    inputs_json=as_json([_genai(m) for m in messages]),
                    outputs_json=as_json(
                        [{**_genai(reply), "finish_reason": choice.finish_reason}]
                    ),
                    input_tokens=usage.prompt_tokens if usage else 0,
                    output_tokens=usage.completion_tokens if usage else 0,
                    finish_reason=str(choice.finish_reason),
                )
            messages.append(reply)
            calls = reply.get("tool_calls") or []
            if not calls:
                return str(reply.get("content") or "")
            messages += [self._execute(agent_name, call, handoff) for call in calls]
        return "I could not finish this request."

    def _execute(
        self, agent_name: str, call: dict[str, Any], handoff: Callable[[dict[str, Any]], Any] | None
    ) -> dict[str, Any]:
        name = call["function"]["name"]
        try:
            arguments = json.loads(call["function"]["arguments"] or "{}")
        except ValueError:
            arguments = {"_unparsed": call["function"]["arguments"]}
        with self.recorder.tool_span(name, call["id"], arguments, agent_name) as span:
            try:
                if name == "transfer_to_agent" and handoff is not None:
                    result: Any = handoff(arguments)
                else:
                    result = self.toolbox.call(name, arguments)
                span.set_attribute("gen_ai.tool.call.result", as_json(result))
            except ToolError as exc:
                result = str(exc)
                span.set_attribute("gen_ai.tool.call.result", result)
                span.set_attribute("error.type", "ToolError")
                span.set_status(Status(StatusCode.ERROR, result))
        return {"role": "tool", "tool_call_id": call["id"], "content": as_json(result)}


def run_with_openai(
    item: DatasetItem,
    config: BuildConfig,
    *,
    base_url: str,
    tracer: Tracer,
    root_attributes: dict[str, Any],
    conversation_id: str,
    parent: otel_context.Context | None = None,
) -> tuple[str, list[str]]:
    """Run one item with a real model; returns (final answer, executed write tools)."""
    from openai import OpenAI

    client = OpenAI(
        base_url=base_url, api_key=os.environ.get("EVAL_PIPELINE_AGENT_API_KEY") or "not-needed"
    )
    model = os.environ.get("EVAL_PIPELINE_AGENT_MODEL") or config.model
    db = RetailDB()
    toolbox = ToolBox(db, policy_version=config.policy_index, renamed=config.renamed_arguments)
    recorder = Recorder(tracer, Clock.real(), conversation_id=conversation_id)
    loop = _Loop(client, model, recorder, toolbox)

    def handoff(arguments: dict[str, Any]) -> str:
        brief = as_json(arguments)
        with recorder.agent("refunds_agent", model=model) as span:
            span.set_attribute("gen_ai.input.messages", as_json([text_message("user", brief)]))
            answer = loop.run(
                "refunds_agent", REFUNDS_PROMPT, refunds_tools(config.renamed_arguments), brief
            )
            span.set_attribute(
                "gen_ai.output.messages", as_json([text_message("assistant", answer)])
            )
        return answer

    with recorder.agent("support_agent", model=model, extra=root_attributes, parent=parent) as root:
        root.set_attribute(
            "gen_ai.input.messages", as_json([text_message("user", item.user_input)])
        )
        answer = loop.run("support_agent", SUPPORT_PROMPT, SUPPORT_TOOLS, item.user_input, handoff)
        root.set_attribute("gen_ai.output.messages", as_json([text_message("assistant", answer)]))
    return answer, [name for name, _ in db.actions]
