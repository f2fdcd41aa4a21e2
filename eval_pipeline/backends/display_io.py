"""A span's input and output as OpenInference ``input.value`` / ``output.value``, for trace UIs.

Phoenix (and Langfuse's OTLP endpoint) show a span's input and output from these
attributes; a GenAI span carries its content elsewhere (``gen_ai.input.messages``, the tool
call's arguments and result), so without them Phoenix shows "--". On export each span that
names its GenAI operation gets, unless it already has them:

- the run's root span: the user's input and the final answer (the run's, as assembled);
- a tool span: the call's arguments and result, as JSON;
- an inference span: the last user message's text (else the messages as JSON) and the text
  of its output (else the output messages, tool calls included, as JSON).

Only spans that name their operation get them: reading a Phoenix project back drops exactly
these OpenInference copies from such spans (``importers.backends.phoenix``), so an export
read back is still the run that was sent. Values the store redacted stay redacted.
"""

import json
from collections.abc import Sequence
from typing import Any

from eval_pipeline.traces.model import Message, Operation, Span
from eval_pipeline.traces.runs.assemble import assemble_runs

INPUT_VALUE, INPUT_MIME = "input.value", "input.mime_type"
OUTPUT_VALUE, OUTPUT_MIME = "output.value", "output.mime_type"
TEXT, JSON = "text/plain", "application/json"


def _as_value(value: Any) -> tuple[str, str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value, TEXT
    return json.dumps(value, sort_keys=True, default=str), JSON


def _messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    return [{"role": m.role, "parts": list(m.parts)} for m in messages]


def _inference_io(span: Span) -> tuple[Any, Any]:
    users = [m.text for m in span.input_messages if m.role == "user" and m.text]
    given: Any = users[-1] if users else (_messages(span.input_messages) or None)
    answer = "".join(m.text for m in span.output_messages)
    made: Any = answer if answer else (_messages(span.output_messages) or None)
    return given, made


def display_attributes(spans: Sequence[Span]) -> dict[str, dict[str, str]]:
    """Span id -> the ``input.*`` / ``output.*`` attributes to add to it (see module doc)."""
    runs = {run.trace_id: run for run in assemble_runs(spans)}
    out: dict[str, dict[str, str]] = {}
    for span in spans:
        if span.operation == Operation.UNKNOWN:
            continue
        run = runs.get(span.trace_id)
        if span.parent_span_id is None and run is not None:
            pair: tuple[Any, Any] = (run.user_input, run.final_answer)
        elif span.operation == Operation.EXECUTE_TOOL:
            pair = (span.tool_arguments, span.tool_result)
        elif span.operation in Operation.INFERENCE:
            pair = _inference_io(span)
        else:
            continue
        attributes: dict[str, str] = {}
        for (value_key, mime_key), value in zip(
            ((INPUT_VALUE, INPUT_MIME), (OUTPUT_VALUE, OUTPUT_MIME)), pair, strict=True
        ):
            shown = _as_value(value)
            if shown is not None and value_key not in span.attributes:
                attributes[value_key], attributes[mime_key] = shown
        if attributes:
            out[span.span_id] = attributes
    return out
