"""Personal data scrubbed from JSON payloads and message parts, under one policy.

Tool arguments and results, message parts and attribute values are JSON: every string, key
and long number in them goes through the tokeniser (``pii.Tokeniser``). Message parts follow
the policy's tool opt-ins too: a tool call's arguments or a tool response's result of a tool
not opted in is dropped from the part. Every replacement is recorded as ``path:KIND`` in a
``found`` list (the span's audit attribute, ``redactor.REPLACED``), every dropped field's
path in ``dropped``.
"""

import re
from itertools import pairwise

from eval_pipeline.traces.model import JsonValue, Message
from eval_pipeline.traces.normalise.messages import new_message
from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline.traces.redact.policy import RedactionPolicy
from eval_pipeline.traces.redact.validators import aadhaar, br_cpf, nhs_mod11

_JOINED_KINDS = frozenset({"CARD", "IBAN", "UK_NHS", "IN_AADHAAR", "BR_CPF", "FR_NIR"})
"""Kinds found in joined array elements: those with a checksum (grouped digits alone would
make a phone of any list of numbers; a list starting ``+``, ``(`` or ``0`` may be a phone)."""


def _checksummed(text: str) -> bool:
    """True when ``text``'s digits pass a national identifier's check.

    An NHS number, written 3-3-4, is found as a phone first (phones come before it).
    """
    return any(check(text) is not None for check in (nhs_mod11, aadhaar, br_cpf))


_DIGIT_GROUP = re.compile(r"[+(]?\d[\d ().-]{0,7}")


def _digit_group(item: JsonValue) -> bool:
    """True for a string holding a short group of digits: a piece of a split number.

    JSON numbers are not joined (but for a card's four groups, ``Payloads._card_groups``):
    ``[10000, 15000, 20000]`` is data, and any 13 digits or more pass Luhn one time in ten.
    """
    return type(item) is str and _DIGIT_GROUP.fullmatch(item) is not None


_CONTENT_KEYS = {"text": "content", "tool_call": "arguments", "tool_call_response": "response"}

_Cached = tuple[tuple[Message, ...], tuple[Message, ...], frozenset[str], tuple[str, ...]]
_NOTHING: frozenset[str] = frozenset()
_NO_NAMES: dict[str, str] = {}


class Payloads:
    """Scrubs JSON values and messages with one tokeniser; repeated histories are cached."""

    def __init__(self, tokens: Tokeniser, policy: RedactionPolicy) -> None:
        self.policy = policy
        self._tokens = tokens
        self._cache: dict[int, _Cached] = {}

    def scrub(self, value: JsonValue, path: str, found: list[str]) -> JsonValue:
        """``value`` with personal data tokenised; each replacement added to ``found``."""
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
                    out[key] = self.scrub(v, f"{path}.{key}", found)
            return out
        if isinstance(value, list):
            items = [self.scrub(v, path, found) for v in value]
            return self._joined(value, items, path, found) if len(value) > 1 else items
        return value

    def _joined(
        self, value: list[JsonValue], out: list[JsonValue], path: str, found: list[str]
    ) -> list[JsonValue]:
        """``out`` with numbers split across adjacent elements replaced.

        ``["4111", "1111", ...]``: each run of strings of short digit groups is
        joined with spaces and scanned; every element a value found there spans becomes its
        token (values with a checksum; phones too in strings starting ``+``, ``(`` or ``0``).
        """
        runs: list[list[int]] = []
        for index, item in enumerate(value):
            if out[index] is item and _digit_group(item):
                if runs and runs[-1][-1] == index - 1:
                    runs[-1].append(index)
                    continue
                runs.append([index])
        for run in runs:
            if len(run) < 2:
                continue
            starts, pieces, at = [], [], 0
            for index in run:
                piece = str(value[index])
                starts.append(at)
                pieces.append(piece)
                at += len(piece) + 1
            first = pieces[0]
            phone_like = first.startswith(("+", "(", "0"))
            joined = " ".join(pieces)
            for start, end, replacement, kinds in self._tokens.places(joined):
                checked = _JOINED_KINDS.issuperset(kinds) or _checksummed(joined[start:end])
                if not checked and not phone_like:
                    continue  # [85, 90, 88, 92]: data, not a number written in groups
                for index, piece_start in zip(run, starts, strict=True):
                    if piece_start < end and start < piece_start + len(str(value[index])):
                        out[index] = replacement
                found.extend(f"{path}:{kind}" for kind in kinds)
        self._card_groups(value, out, path, found)
        return out

    def _card_groups(
        self, value: list[JsonValue], out: list[JsonValue], path: str, found: list[str]
    ) -> None:
        """A card number sent as four JSON numbers of 4 digits (``[4111, 1111, 1111, 1111]``).

        Only four 4-digit numbers that are not an arithmetic run (years, steps) and that pass
        Luhn together are taken: other lists of numbers are data.
        """
        index = 0
        while index + 4 <= len(value):
            group = value[index : index + 4]
            if all(type(n) is int and 1000 <= n <= 9999 for n in group) and all(
                out[index + i] is group[i] for i in range(4)
            ):
                numbers: list[int] = group  # type: ignore[assignment]
                steps = {b - a for a, b in pairwise(numbers)}
                places = self._tokens.places(" ".join(map(str, numbers)))
                if len(steps) > 1 and len(places) == 1 and places[0][3] == ("CARD",):
                    out[index : index + 4] = [places[0][2]] * 4
                    found.append(f"{path}:CARD")
                    index += 4
                    continue
            index += 1

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
            cleaned = self.scrub(value, where, found)
            return part if cleaned is value or cleaned == value else {**part, content_key: cleaned}
        # Every field but the type is scanned: names, ids and extra keys carry data too.
        cleaned_part = self.scrub({k: v for k, v in part.items() if k != "type"}, where, found)
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

    def messages(
        self, messages: tuple[Message, ...], where: str
    ) -> tuple[tuple[Message, ...], frozenset[str], tuple[str, ...]]:
        """``messages`` with the policy applied, the fields dropped and the replacements."""
        if not messages:
            return messages, _NOTHING, ()
        # Input histories repeat on every inference span and parsing memoises them (same
        # tuple object for the same text), so their results are cached per tuple identity.
        # Outputs are nearly always new: caching them would only evict histories.
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


def _call_names(messages: tuple[Message, ...]) -> dict[str, str]:
    """Tool name by call id, from the tool-call parts of ``messages``."""
    return {str(p.get("id")): str(p.get("name")) for m in messages for p in m.tool_calls}
