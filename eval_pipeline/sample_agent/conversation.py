"""One agent's conversation: model turns (``chat`` spans) and tool executions (``execute_tool``).

Each model turn records the history it was given and the message it produced (a tool call
whose id matches the ``execute_tool`` span, or the final text), with token usage; each tool
execution records its arguments and result, or its error. The simulated clock advances by the
drawn latencies, so span durations are realistic.
"""

from typing import Any

from opentelemetry.trace import Status, StatusCode

from eval_pipeline.sample_agent.retail_db import ToolError
from eval_pipeline.sample_agent.simulator import Call, SimulatedModel
from eval_pipeline.sample_agent.telemetry import Recorder, as_json, tool_result_attribute
from eval_pipeline.sample_agent.tools import ToolBox


def text_message(role: str, text: str) -> dict[str, Any]:
    """A GenAI structured message with one text part."""
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _upstream_timeout() -> Any:
    raise ToolError("Error: upstream timeout contacting the order service")


class Conversation:
    """The message history and span recording of one agent (support or refunds)."""

    def __init__(
        self,
        agent_name: str,
        system_prompt: str,
        tools: list[dict[str, Any]],
        recorder: Recorder,
        model: SimulatedModel,
        toolbox: ToolBox,
    ) -> None:
        self.agent_name = agent_name
        self.recorder = recorder
        self.model = model
        self.toolbox = toolbox
        self.history: list[dict[str, Any]] = [text_message("system", system_prompt)]
        self._prompt_chars = len(system_prompt) + len(str(tools))
        self.results: list[tuple[Call, Any, str | None]] = []

    def user(self, text: str) -> None:
        """Append a user (or delegating agent) message."""
        self.history.append(text_message("user", text))

    def _turn(self, output: dict[str, Any], finish_reason: str) -> None:
        config = self.model.config
        with self.recorder.chat_span(config.model) as span:
            self.recorder.clock.advance(self.model.chat_latency())
            inputs = as_json(self.history)
            outputs = as_json([{**output, "finish_reason": finish_reason}])
            tokens_in, tokens_out = self.model.usage(self._prompt_chars, len(inputs), len(outputs))
            self.recorder.chat(
                span,
                agent_name=self.agent_name,
                model=config.model,
                inputs_json=inputs,
                outputs_json=outputs,
                input_tokens=tokens_in,
                output_tokens=tokens_out,
                finish_reason=finish_reason,
            )
        self.history.append(output)

    def call(
        self, call: Call, *, transient_error: bool = False, run_tool: Any = None
    ) -> tuple[Any, str | None]:
        """A model turn requesting ``call``, then its execution; returns (result, error).

        ``run_tool`` replaces the toolbox for this call (the hand-off runs another agent).
        ``transient_error`` makes the first attempt fail as an upstream timeout, after which
        the model retries once with a new call id.
        """
        if transient_error:
            self._execute(call, _upstream_timeout)
        return self._execute(
            call, run_tool or (lambda: self.toolbox.call(call.name, call.arguments))
        )

    def _execute(self, call: Call, run: Any) -> tuple[Any, str | None]:
        call_id = self.model.call_id()
        self._turn(
            {
                "role": "assistant",
                "parts": [
                    {
                        "type": "tool_call",
                        "id": call_id,
                        "name": call.name,
                        "arguments": call.arguments,
                    },
                ],
            },
            "tool_call",
        )
        result: Any = None
        error: str | None = None
        with self.recorder.tool_span(call.name, call_id, call.arguments, self.agent_name) as span:
            try:
                result = run()
                span.set_attribute("gen_ai.tool.call.result", tool_result_attribute(result))
            except ToolError as exc:
                error = str(exc)
                span.set_attribute("gen_ai.tool.call.result", error)
                span.set_attribute("error.type", "ToolError")
                span.set_status(Status(StatusCode.ERROR, error))
            self.recorder.clock.advance(self.model.tool_latency())
        self.history.append(
            {
                "role": "tool",
                "parts": [
                    {
                        "type": "tool_call_response",
                        "id": call_id,
                        "response": error if error is not None else result,
                    },
                ],
            }
        )
        self.results.append((call, result, error))
        return result, error

    def answer(self, text: str) -> str:
        """The agent's final model turn (plain text)."""
        self._turn(text_message("assistant", text), "stop")
        return text
