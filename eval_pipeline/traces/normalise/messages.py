"""Chat messages in any shape seen in the wild -> the GenAI structured ``Message`` form.

Handles the GenAI JSON (roles + typed parts), OpenAI chat messages (``content`` +
``tool_calls``), and one real quirk of the OpenAI Agents instrumentation: a tool call written
into a text part as the Python repr ``ResponseFunctionToolCall(arguments='...', call_id=...)``,
which is turned back into a ``tool_call`` part.
"""

import ast
import json
import json.scanner
import re
from collections.abc import Iterable, Mapping
from typing import Any

from eval_pipeline.traces.model import JsonValue, Message

_REPR_PREFIX = "ResponseFunctionToolCall("


# ``json.loads`` on text that starts with ``{``/``[`` and ends with ``}``/``]`` (so no
# surrounding whitespace or BOM) is exactly one scan that must consume the whole text; the
# C scanner does that without the three Python frames ``json.loads`` goes through.
_scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]


def json_or_text(value: Any) -> JsonValue:
    """Parse a JSON object/array held in a string; any other value is returned unchanged."""
    if type(value) is str or isinstance(value, str):
        # Text that begins and ends with a bracket has nothing to strip (no copy made).
        first = value[:1]
        stripped = (
            value if (first == "{" or first == "[") and value[-1:] in ("}", "]") else value.strip()
        )
        if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
            try:
                parsed, end = _scan(stripped, 0)
            except (StopIteration, ValueError):
                return value
            return parsed if end == len(stripped) else value
    return value


_QUOTED = r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
_REPR_ARGUMENTS = re.compile(r"\barguments=" + _QUOTED)
_REPR_CALL_ID = re.compile(r"\bcall_id=" + _QUOTED)
_REPR_NAME = re.compile(r"\bname=" + _QUOTED)
# The usual shape, with values free of quotes, backslashes (and ``=`` in the call id, so no
# later field can hide in it): one match gives what the general search below would find.
_REPR_PLAIN = re.compile(
    r"ResponseFunctionToolCall\(arguments='([^'\\]*)', call_id='([^'\\=]*)', name='([^'\\]*)'"
)


def _literal(match: re.Match[str] | None) -> Any:
    if match is None:
        return None
    text = match.group(1)
    # Python reprs escape only backslashes, their own quote and unprintables.
    return text[1:-1] if "\\" not in text else ast.literal_eval(text)


def tool_call_from_repr(text: str, parse_arguments: bool = True) -> dict[str, JsonValue] | None:
    """A ``tool_call`` part from a ``ResponseFunctionToolCall(...)`` repr, or None.

    ``parse_arguments=False`` leaves the arguments as their text (``parse_arguments`` of the
    part does the rest), for a caller that may drop them unread.
    """
    # Plain text (nearly every part) is told apart without copying it.
    stripped = text if text.startswith(_REPR_PREFIX) else text.lstrip()
    if not stripped.startswith(_REPR_PREFIX):
        return None
    if not stripped.endswith(")"):
        stripped = stripped.rstrip()
        if not stripped.endswith(")"):
            return None
    plain = _REPR_PLAIN.match(stripped)
    if plain is not None:
        arguments, call_id, name = plain.groups()
        return {
            "type": "tool_call",
            "id": call_id,
            "name": name,
            "arguments": json_or_text(arguments) if parse_arguments else arguments,
        }
    return _searched_tool_call(stripped, parse_arguments)


def _searched_tool_call(stripped: str, parse_arguments: bool = True) -> dict[str, JsonValue] | None:
    """The general reading of a repr (any field order, escapes), for ``tool_call_from_repr``."""
    found = _REPR_ARGUMENTS.search(stripped)
    # The other fields are looked for after the arguments, whose text may contain anything.
    rest = found.end() if found else len(_REPR_PREFIX)
    try:
        arguments = _literal(found)
        name = _literal(_REPR_NAME.search(stripped, rest) or _REPR_NAME.search(stripped))
        call_id = _literal(_REPR_CALL_ID.search(stripped, rest) or _REPR_CALL_ID.search(stripped))
    except (ValueError, SyntaxError):
        return None
    if not isinstance(name, str):
        return None
    return {
        "type": "tool_call",
        "id": call_id,
        "name": name,
        "arguments": json_or_text(arguments) if parse_arguments else arguments,
    }


def normalise_part(raw: Any, parse_arguments: bool = True) -> dict[str, JsonValue]:
    """One message part in the GenAI form (a repr'd tool call becomes a ``tool_call`` part).

    ``parse_arguments=False`` leaves a tool call's arguments text unparsed; then
    ``parse_arguments(part)`` gives what the default would have.
    """
    if type(raw) is not dict and not isinstance(raw, Mapping):
        return {"type": "text", "content": "" if raw is None else str(raw)}
    kind = raw.get("type")
    if kind == "text":
        content = raw.get("content")
        if isinstance(content, str):
            call = tool_call_from_repr(content, parse_arguments)
            if call is not None:
                return call
        elif content is None and isinstance(raw.get("text"), str):
            # An OpenAI content part ({"type": "text", "text": ...}) in the GenAI form.
            return {"type": "text", "content": raw["text"]}
    part = dict(raw)
    if parse_arguments and kind == "tool_call" and isinstance(part.get("arguments"), str):
        part["arguments"] = json_or_text(part["arguments"])
    return part


def parse_arguments(part: dict[str, JsonValue]) -> None:
    """Parse, in place, the arguments text a ``normalise_part(..., False)`` part kept."""
    if part.get("type") == "tool_call" and isinstance(part.get("arguments"), str):
        part["arguments"] = json_or_text(part["arguments"])


def _openai_tool_call(raw: Mapping[str, Any]) -> dict[str, JsonValue]:
    function = raw.get("function") if isinstance(raw.get("function"), Mapping) else raw
    assert isinstance(function, Mapping)
    return {
        "type": "tool_call",
        "id": raw.get("id"),
        "name": function.get("name"),
        "arguments": json_or_text(function.get("arguments")),
    }


def message(raw: Mapping[str, Any], default_role: str = "user") -> Message:
    """One message from a GenAI-form or OpenAI-form mapping."""
    role = raw.get("role") or default_role
    if type(role) is not str:
        role = str(role)
    parts: tuple[dict[str, JsonValue], ...]
    given = raw.get("parts")
    if isinstance(given, list):
        parts = tuple(map(normalise_part, given))
    else:
        collected: list[dict[str, JsonValue]] = []
        content = raw.get("content")
        if isinstance(content, list):
            collected.extend(normalise_part(p) for p in content)
        elif content not in (None, ""):
            if role == "tool":
                collected.append(
                    {
                        "type": "tool_call_response",
                        "id": raw.get("tool_call_id") or raw.get("id"),
                        "response": json_or_text(content),
                    }
                )
            else:
                collected.append(normalise_part({"type": "text", "content": str(content)}))
        calls = raw.get("tool_calls")
        if isinstance(calls, str):
            calls = json_or_text(calls)
        if isinstance(calls, list):
            collected.extend(_openai_tool_call(c) for c in calls if isinstance(c, Mapping))
        parts = tuple(collected)
    name = raw.get("name")
    finish = raw.get("finish_reason")
    return Message(
        role,
        parts,
        str(name) if name is not None and role != "tool" else None,
        str(finish) if finish is not None else None,
    )


def new_message(
    role: str,
    parts: tuple[dict[str, JsonValue], ...],
    name: str | None = None,
    finish_reason: str | None = None,
) -> Message:
    """``Message(role, parts, name, finish_reason)``, by position (the redactor's spelling)."""
    return Message(role, parts, name, finish_reason)


_CACHE: dict[tuple[str, str], tuple[Message, ...]] = {}
_CACHE_SIZE = 4096


def clear_parse_cache() -> None:
    """Forget memoised ``parse_messages`` results (benchmarks start each run cold)."""
    _CACHE.clear()


def parse_messages(value: Any, default_role: str = "user") -> tuple[Message, ...]:
    """Messages from a JSON string, a list of mappings, or a single mapping; () for None.

    Instrumentations repeat the whole history on every inference span, so results for JSON
    text are memoised (messages are frozen; the same text yields the same tuple object).
    """
    if value is None:
        return ()
    if isinstance(value, str):
        cached = _CACHE.get((value, default_role))
        if cached is None:
            if len(_CACHE) >= _CACHE_SIZE:
                _CACHE.clear()
            cached = _CACHE[(value, default_role)] = _parse(value, default_role)
        return cached
    return _parse(value, default_role)


def parse_output_messages(value: Any) -> tuple[Message, ...]:
    """``parse_messages(value, "assistant")`` without memoising: outputs are nearly always new.

    Memoising them would only evict the input histories, which do repeat.
    """
    return () if value is None else _parse(value, "assistant")


def _parse(value: Any, default_role: str) -> tuple[Message, ...]:
    value = json_or_text(value)
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        return (Message(role=default_role, parts=({"type": "text", "content": value},)),)
    if type(value) is list:
        return tuple(
            [message(m, default_role) for m in value if type(m) is dict or isinstance(m, Mapping)]
        )
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, Iterable):
        return ()
    return tuple(message(m, default_role) for m in value if isinstance(m, Mapping))


def messages_to_json(messages: Iterable[Message]) -> list[dict[str, JsonValue]]:
    """Messages back to the GenAI JSON form (for storage and display)."""
    out = []
    for msg in messages:
        item: dict[str, JsonValue] = {"role": msg.role, "parts": [dict(p) for p in msg.parts]}
        if msg.name is not None:
            item["name"] = msg.name
        if msg.finish_reason is not None:
            item["finish_reason"] = msg.finish_reason
        out.append(item)
    return out


def messages_from_json(items: Iterable[Mapping[str, Any]]) -> tuple[Message, ...]:
    """The inverse of ``messages_to_json`` (no repair of quirks: stored data is normalised)."""
    return tuple(
        Message(
            role=str(item["role"]),
            parts=tuple(dict(p) for p in item.get("parts", ())),
            name=item.get("name"),
            finish_reason=item.get("finish_reason"),
        )
        for item in items
    )
