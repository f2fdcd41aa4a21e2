"""Redaction before anything is stored: a compiled policy applied to every span.

Tool arguments/results not opted in by the policy (``traces.redaction_policy``) are dropped
from the tool span *and* from the tool-call parts of messages. In what is kept (arguments,
results, message content, string attributes other than the structural ones listed in
``STRUCTURAL_ATTRIBUTES``), personal data is replaced by stable keyed tokens (``traces.pii``).
A redacted span carries ``eval_pipeline.redaction.dropped`` (fields removed) and
``eval_pipeline.redaction.replaced`` (``field:KIND`` -> count), so "redacted" can be told
apart from "never sent".
"""

import re
from typing import Any

from eval_pipeline.traces.model import JsonValue, Message, Operation, Span
from eval_pipeline.traces.normalise.messages import new_message
from eval_pipeline.traces.redact.pii import Tokeniser, detectors_for
from eval_pipeline.traces.redact.policy import (
    DEFAULT_POLICY_PATH,
    KEEP_TOOLS_POLICY_PATH,
    NAMED_POLICIES,
    PolicyError,
    RedactionPolicy,
    load_policy,
)
from eval_pipeline.traces.span_factory import span_from_state

DROPPED = "eval_pipeline.redaction.dropped"
REPLACED = "eval_pipeline.redaction.replaced"
POLICY = "eval_pipeline.redaction.policy"
_AUDIT = "eval_pipeline.redaction."

STRUCTURAL_ATTRIBUTES = frozenset(
    {
        "gen_ai.request.model",
        "gen_ai.response.model",
        "gen_ai.response.id",
        "gen_ai.response.finish_reasons",
        "gen_ai.output.type",
        "gen_ai.agent.id",
        "gen_ai.agent.description",
        "gen_ai.tool.type",
        "gen_ai.tool.description",
        "server.address",
        "server.port",
        "openai.response.system_fingerprint",
        "openai.request.service_tier",
        "openai.response.service_tier",
        "gen_ai.request.seed",
    }
)
"""Attributes that hold identifiers and settings, not user content: not scanned for PII."""

_ID_SYNTAX = re.compile(r"[A-Za-z][\w.:/-]{0,255}")
"""Ids and settings: a letter first, then word characters (no spaces, ``@``, ``+`` or ``%``)."""

_CHANGED_FIELDS = (
    "tool_arguments",
    "tool_result",
    "input_messages",
    "output_messages",
    "attributes",
)
_CONTENT_KEYS = {"text": "content", "tool_call": "arguments", "tool_call_response": "response"}

_Cached = tuple[tuple[Message, ...], tuple[Message, ...], frozenset[str], tuple[str, ...]]
_NOTHING: frozenset[str] = frozenset()
_NO_NAMES: dict[str, str] = {}


class Redactor:
    """Applies one compiled policy to spans; tokens and repeated histories are cached."""

    def __init__(self, policy: RedactionPolicy) -> None:
        self.policy = policy
        self._tokens = Tokeniser(detectors_for(policy.detectors), policy.key)
        self.tokens = self._tokens
        """The tokeniser (for scanners of other fields: ``fields.RowScrubber``)."""
        self._cache: dict[int, _Cached] = {}

    def _scrub(self, value: JsonValue, path: str, found: list[str]) -> JsonValue:
        if type(value) is str:
            text, kinds = self._tokens.redact(value)
            if kinds:
                found.extend(f"{path}:{kind}" for kind in kinds)
            return text
        if type(value) is int and not -1_000_000 < value < 1_000_000:
            # A card or phone number sent as a JSON number: stored as its token (a string).
            text, kinds = self._tokens.redact(str(value))
            if kinds:
                found.extend(f"{path}:{kind}" for kind in kinds)
                return text
            return value
        if isinstance(value, dict):
            # String values inline, so a key's path is only spelled out when it holds PII.
            redact = self._tokens.redact
            out: dict[str, JsonValue] = {}
            for k, v in value.items():
                key, key_kinds = redact(k) if type(k) is str else (k, ())
                if key_kinds:
                    found.extend(f"{path}.key:{kind}" for kind in key_kinds)
                if type(v) is str:
                    text, kinds = redact(v)
                    if kinds:
                        found.extend(f"{path}.{key}:{kind}" for kind in kinds)
                    out[key] = text
                else:
                    out[key] = self._scrub(v, f"{path}.{key}", found)
            return out
        if isinstance(value, list):
            return [self._scrub(v, path, found) for v in value]
        return value

    def _part(
        self,
        part: dict[str, JsonValue],
        where: str,
        names: dict[str, str],
        dropped: set[str],
        found: list[str],
    ) -> dict[str, JsonValue]:
        kind = part.get("type")
        if kind == "text" and len(part) == 2:
            # The usual part, only a type and a text (what the steps below do to it, inline).
            content = part.get("content")
            if type(content) is str:
                text, kinds = self._tokens.redact(content)
                if kinds:
                    found.extend([f"{where}:{kind}" for kind in kinds])
                return part if text == content else {**part, "content": text}
        if kind == "tool_call" and not self.policy.keeps_arguments(str(part.get("name"))):
            if part.get("arguments") is None:
                return part
            dropped.add(where + ".tool_call.arguments")
            kept = dict(part)
            del kept["arguments"]
            return kept
        if kind == "tool_call_response" and not self.policy.keeps_results(
            names.get(str(part.get("id")))
        ):
            if part.get("response") is None:
                return part
            dropped.add(f"{where}.tool_call_response.response")
            kept = dict(part)
            del kept["response"]
            return kept
        content_key = _CONTENT_KEYS.get(str(kind))
        if content_key is not None and self._plain_fields(part, content_key):
            value = part.get(content_key)
            cleaned = self._scrub(value, where, found)
            return part if cleaned is value or cleaned == value else {**part, content_key: cleaned}
        # Every field but the type is scanned: names, ids and extra keys carry data too.
        cleaned_part = self._scrub({k: v for k, v in part.items() if k != "type"}, where, found)
        assert isinstance(cleaned_part, dict)
        cleaned_part = {"type": kind, **cleaned_part} if "type" in part else cleaned_part
        return part if cleaned_part == part else cleaned_part

    def _plain_fields(self, part: dict[str, JsonValue], content_key: str) -> bool:
        """True when no field of ``part`` but its type and content can hold personal data."""
        clean = self._tokens.clean
        redact = self._tokens.redact
        for key, value in part.items():
            if key == "type" or key == content_key or value is None:
                continue
            if type(value) is not str:
                return False
            if value not in clean and redact(value)[1]:
                return False
        return True

    def output_part(
        self, part: dict[str, JsonValue], dropped: set[str], found: list[str]
    ) -> dict[str, JsonValue]:
        """One normalised part of an output message with the policy applied.

        For any part but a ``tool_call_response`` (whose tool is named elsewhere in the
        message list), this is what ``_messages`` does to it.
        """
        return self._part(part, "output_messages", _NO_NAMES, dropped, found)

    def _messages(
        self, messages: tuple[Message, ...], where: str
    ) -> tuple[tuple[Message, ...], frozenset[str], tuple[str, ...]]:
        if not messages:
            return messages, _NOTHING, ()
        # Input histories repeat on every inference span and parsing memoises them (same
        # tuple object for the same text), so their results are cached per tuple identity.
        # Outputs are nearly always new: caching them would only evict histories.
        # (The ingestion fast path's C code reads this memo too: ``ingest/_changes.h``.)
        memo = where == "input_messages"
        if memo:
            key = id(messages)
            cached = self._cache.get(key)
            if cached is not None and cached[0] is messages:
                return cached[1], cached[2], cached[3]
        names: dict[str, str] | None = None
        dropped: set[str] = set()
        found: list[str] = []
        result = []
        for msg in messages:
            parts = []
            changed = False
            for old in msg.parts:
                if names is None and old.get("type") == "tool_call_response":
                    names = _call_names(messages)
                new = self._part(old, where, names or _NO_NAMES, dropped, found)
                changed = changed or new is not old
                parts.append(new)
            name = msg.name
            if type(name) is str:
                cleaned_name, kinds = self._tokens.redact(name)
                if kinds:
                    found.extend(f"{where}.name:{kind}" for kind in kinds)
                    name = cleaned_name
                    changed = True
            result.append(
                new_message(msg.role, tuple(parts), name, msg.finish_reason) if changed else msg
            )
        out = tuple(result) if dropped or found else messages
        if not memo:
            return out, frozenset(dropped), tuple(found)
        if len(self._cache) >= 4096:
            self._cache.clear()
        entry = (messages, out, frozenset(dropped), tuple(found))
        self._cache[key] = entry
        return entry[1], entry[2], entry[3]

    def scrub_value(self, value: JsonValue) -> JsonValue:
        """A JSON value with personal data in every string, key and long number tokenised."""
        return self._scrub(value, "", [])

    def scrub_text(self, text: str) -> str:
        """``text`` with the personal data the policy detects replaced by tokens."""
        return self._tokens.redact(text)[0]

    def redact(self, span: Span) -> Span:
        """The span with the policy applied (the same object when nothing changed)."""
        changes = self._changes(span)
        if changes is None:
            return span
        state = dict(span.__dict__)
        state.update(changes)
        return span_from_state(state)

    def redact_batch(self, spans: list[Span]) -> list[Span]:
        """``[redact(s) for s in spans]`` for a fresh batch that only the caller refers to.

        The policy is applied to each span's own storage instead of a copy (see
        ``normalise.normalise_batch``); the result is equal, span by span, to ``redact``'s.
        """
        changes_of = self._changes
        for span in spans:
            changes = changes_of(span)
            if changes is not None:
                span.__dict__.update(changes)
        return spans

    def _changes(self, span: Span) -> dict[str, Any] | None:
        """The fields the policy changes on ``span`` (None when it changes nothing)."""
        dropped: set[str] = set()
        arguments, result = self.drop_tool_payload(
            dropped, span.tool_name, span.operation, span.tool_arguments, span.tool_result
        )
        changed = self.changes(
            dropped,
            arguments,
            result,
            span.input_messages,
            span.output_messages,
            span.attributes,
        )
        return None if changed is None else dict(zip(_CHANGED_FIELDS, changed, strict=True))

    def drop_tool_payload(
        self,
        dropped: set[str],
        tool: str | None,
        operation: str,
        arguments: Any,
        result: Any,
    ) -> tuple[Any, Any]:
        """The tool arguments and result the policy keeps (None for dropped ones).

        The decision depends only on the tool and on which values are present, so the
        ingestion fast path asks it before parsing a payload it would then throw away.
        Dropped fields are added to ``dropped``.
        """
        if (arguments is not None or result is not None) and (
            tool or operation == Operation.EXECUTE_TOOL
        ):
            policy = self.policy
            if arguments is not None and not policy.keeps_arguments(tool):
                arguments = None
                dropped.add("tool_arguments")
            if result is not None and not policy.keeps_results(tool):
                result = None
                dropped.add("tool_result")
        return arguments, result

    def changes(
        self,
        dropped: set[str],
        arguments: JsonValue,
        result: JsonValue,
        inputs: tuple[Message, ...],
        outputs: tuple[Message, ...],
        attributes: dict[str, JsonValue],
        found: list[str] | None = None,
        *,
        owned: bool = False,
    ) -> (
        tuple[JsonValue, JsonValue, tuple[Message, ...], tuple[Message, ...], dict[str, Any]] | None
    ):
        """The changed fields after ``drop_tool_payload`` (None when nothing changes).

        Scrubs personal data from the kept arguments and result, the messages and the
        non-structural attributes, and records the audit attributes. The fields come back
        in ``_CHANGED_FIELDS`` order. ``found`` holds replacements already made (by
        ``output_part``). ``owned``: ``attributes`` belongs to the caller alone and may be
        changed in place.
        """
        found = [] if found is None else found
        original_attributes = None if owned else attributes
        if inputs:
            inputs, in_dropped, in_found = self._messages(inputs, "input_messages")
            dropped.update(in_dropped)
            found.extend(in_found)
        if outputs:
            outputs, out_dropped, out_found = self._messages(outputs, "output_messages")
            dropped.update(out_dropped)
            found.extend(out_found)
        for key, value in attributes.items():
            if key.startswith(_AUDIT) or (
                (key in STRUCTURAL_ATTRIBUTES or key.startswith("eval_pipeline."))
                and structural(value)
            ):
                continue
            if isinstance(value, str | list | dict):
                cleaned = self._scrub(value, f"attributes.{key}", found)
                if cleaned is not value and cleaned != value:
                    if attributes is original_attributes:
                        attributes = dict(attributes)
                    attributes[key] = cleaned
        if arguments is not None:
            arguments = self._scrub(arguments, "tool_arguments", found)
        if result is not None:
            result = self._scrub(result, "tool_result", found)
        if not dropped and not found:
            return None
        if attributes is original_attributes:
            attributes = dict(attributes)
        attributes[POLICY] = self.policy.name
        if dropped:
            attributes[DROPPED] = sorted(dropped)
        if len(found) == 1:  # the usual case, without the counting
            attributes[REPLACED] = {found[0]: 1}
        elif found:
            counts: dict[str, int] = {}
            for item in found:
                counts[item] = counts.get(item, 0) + 1
            attributes[REPLACED] = dict(sorted(counts.items()))
        return arguments, result, inputs, outputs, attributes


def structural(value: Any) -> bool:
    """True when a structural attribute's value has the syntax of an id or setting.

    Only such values are exempt from scanning: an email in ``gen_ai.response.id`` is scanned.
    """
    if type(value) is str:
        return _ID_SYNTAX.fullmatch(value) is not None
    if type(value) is list:
        return all(type(v) is str and _ID_SYNTAX.fullmatch(v) is not None for v in value)
    return not isinstance(value, dict)


def _call_names(messages: tuple[Message, ...]) -> dict[str, str]:
    """Tool name by call id, from the tool-call parts of ``messages``."""
    return {str(p.get("id")): str(p.get("name")) for m in messages for p in m.tool_calls}


__all__ = [
    "DEFAULT_POLICY_PATH",
    "DROPPED",
    "KEEP_TOOLS_POLICY_PATH",
    "NAMED_POLICIES",
    "POLICY",
    "REPLACED",
    "STRUCTURAL_ATTRIBUTES",
    "PolicyError",
    "RedactionPolicy",
    "Redactor",
    "load_policy",
]
