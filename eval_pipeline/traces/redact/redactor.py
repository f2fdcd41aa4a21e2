"""Redaction before anything is stored: a compiled policy applied to every span.

Tool arguments/results not opted in by the policy (``traces.redaction_policy``) are dropped
from the tool span *and* from the tool-call parts of messages. In what is kept (arguments,
results, message content, string attributes other than the structural ones listed in
``STRUCTURAL_ATTRIBUTES``), personal data is replaced by stable keyed tokens (``pii``).
A redacted span carries ``eval_pipeline.redaction.dropped`` (fields removed) and
``eval_pipeline.redaction.replaced`` (``field:KIND`` -> count), so "redacted" can be told
apart from "never sent".
"""

import dataclasses
import re
from typing import Any

from eval_pipeline.traces.model import JsonValue, Message, Operation, Span
from eval_pipeline.traces.redact.catalogue import recognizers_for
from eval_pipeline.traces.redact.payloads import Payloads
from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline.traces.redact.policy import (
    DEFAULT_POLICY_PATH,
    KEEP_TOOLS_POLICY_PATH,
    NAMED_POLICIES,
    PolicyError,
    RedactionPolicy,
    load_policy,
)

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


class Redactor:
    """Applies one compiled policy to spans; tokens and repeated histories are cached."""

    def __init__(self, policy: RedactionPolicy) -> None:
        self.policy = policy
        self.tokens = Tokeniser(recognizers_for(policy.detectors, policy.locales), policy.key)
        """The tokeniser (for scanners of other fields: ``fields.RowScrubber``)."""
        self._payloads = Payloads(self.tokens, policy)

    def output_part(
        self, part: dict[str, JsonValue], dropped: set[str], found: list[str]
    ) -> dict[str, JsonValue]:
        """One normalised part of an output message with the policy applied (``Payloads``)."""
        return self._payloads.output_part(part, dropped, found)

    def scrub_value(self, value: JsonValue) -> JsonValue:
        """A JSON value with personal data in every string, key and long number tokenised."""
        return self._payloads.scrub(value, "", [])

    def scrub_text(self, text: str) -> str:
        """``text`` with the personal data the policy detects replaced by tokens."""
        return self.tokens.redact(text)[0]

    def redact(self, span: Span) -> Span:
        """The span with the policy applied (the same object when nothing changed)."""
        changes = self._changes(span)
        if changes is None:
            return span
        return dataclasses.replace(span, **changes)

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

        The decision depends only on the tool and on which values are present, so ingest
        asks it before parsing a payload it would then throw away.
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
            inputs, in_dropped, in_found = self._payloads.messages(inputs, "input_messages")
            dropped.update(in_dropped)
            found.extend(in_found)
        if outputs:
            outputs, out_dropped, out_found = self._payloads.messages(outputs, "output_messages")
            dropped.update(out_dropped)
            found.extend(out_found)
        for key, value in attributes.items():
            if key.startswith(_AUDIT) or (
                (key in STRUCTURAL_ATTRIBUTES or key.startswith("eval_pipeline."))
                and structural(value)
            ):
                continue
            if isinstance(value, str | list | dict):
                cleaned = self._payloads.scrub(value, f"attributes.{key}", found)
                if cleaned is not value and cleaned != value:
                    if attributes is original_attributes:
                        attributes = dict(attributes)
                    attributes[key] = cleaned
        if arguments is not None:
            arguments = self._payloads.scrub(arguments, "tool_arguments", found)
        if result is not None:
            result = self._payloads.scrub(result, "tool_result", found)
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
