"""Deterministic replies of a fake OpenAI-compatible chat endpoint, a function of the request.

Every reply is a function of the request's user prompt and the JSON schema it asks for, nothing
else: the same prompt and schema get the same JSON whoever asks (a library's own OpenAI client,
instructor's JSON mode, or the project's judge), which is what lets a benchmark or a parity test
compare a library metric run directly with eval-pipeline over the same endpoint. The schema is
read from ``response_format.json_schema``, from a function tool's parameters, or from a JSON
schema in a system message (instructor's JSON mode). Values are picked from a hash of the prompt
and the field's path, so verdicts come out mixed ("yes" and "no", 0 and 1).
"""

import hashlib
import json
from typing import Any

_VERDICT_WORDS = ("yes", "no")


def _pick(seed: str, path: str, options: int) -> int:
    digest = hashlib.sha256(f"{seed}|{path}".encode()).digest()
    return digest[0] % options


def _fill(schema: dict[str, Any], defs: dict[str, Any], seed: str, path: str) -> Any:
    if "$ref" in schema:
        return _fill(defs[schema["$ref"].split("/")[-1]], defs, seed, path)
    if "enum" in schema:
        return schema["enum"][_pick(seed, path, len(schema["enum"]))]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"]
            return _fill(options[0], defs, seed, path)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {
            name: _fill(sub, defs, seed, f"{path}/{name}")
            for name, sub in schema.get("properties", {}).items()
        }
    if kind == "array":
        return [_fill(schema.get("items", {}), defs, seed, f"{path}/{n}") for n in range(2)]
    if kind == "integer":
        return _pick(seed, path, 2)
    if kind == "number":
        return [0.25, 0.5, 1.0][_pick(seed, path, 3)]
    if kind == "boolean":
        return bool(_pick(seed, path, 2))
    if path.rsplit("/", 1)[-1] == "verdict":
        return _VERDICT_WORDS[_pick(seed, path, 2)]
    return f"statement {_pick(seed, path, 4)}"


def _schema_in_text(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, dict) and ("properties" in value or "$defs" in value):
            return value
        start = text.find("{", start + 1)
    return None


def requested_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a chat-completions request asks its reply to match, if any."""
    response_format = body.get("response_format") or {}
    if isinstance(response_format.get("json_schema"), dict):
        schema = response_format["json_schema"].get("schema")
        if isinstance(schema, dict):
            return schema
    for tool in body.get("tools") or []:
        parameters = (tool.get("function") or {}).get("parameters")
        if isinstance(parameters, dict):
            return parameters
    for message in body.get("messages") or []:
        if message.get("role") == "system" and isinstance(message.get("content"), str):
            found = _schema_in_text(message["content"])
            if found is not None:
                return found
    return None


def user_prompt(body: dict[str, Any]) -> str:
    """The request's user messages, joined (the part every client sends unchanged)."""
    parts = []
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        parts.append(str(content))
    return "\n".join(parts)


def scripted_reply(body: dict[str, Any]) -> str:
    """The reply content for a request: JSON filled from its schema, or plain text."""
    prompt = user_prompt(body)
    schema = requested_schema(body)
    if schema is None:
        return "yes"
    return json.dumps(_fill(schema, schema.get("$defs", {}), prompt, ""))


def completion(body: dict[str, Any]) -> dict[str, Any]:
    """A chat-completions response to ``body`` (a forced tool call answered as that call)."""
    content = scripted_reply(body)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    tool_choice = body.get("tool_choice")
    if body.get("tools") and isinstance(tool_choice, dict):
        name = tool_choice["function"]["name"]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": name, "arguments": content},
                }
            ],
        }
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": str(body.get("model", "")),
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
