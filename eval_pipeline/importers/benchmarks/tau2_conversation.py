"""tau2-bench tasks as multi-turn items: the user scenario played by a deterministic script.

tau2-bench runs each task as a conversation with a simulated user who follows the task's
``user_scenario.instructions`` (``reason_for_call``, ``known_info``, ``unknown_info``,
``task_instructions``). ``datasets import --format tau2 --multi-turn`` keeps the single-turn
import's reference (expected actions, end state, required outputs, assertions, slices: the
same ``tau2.task_item``) and replaces the input by a conversation (``datasets.conversation``)
whose scripted policy is derived from the instructions by fixed rules, so an offline run needs
no model and gives the same conversation every time:

- **opening**: the first sentence of the reason for call, in the first person ("You want to
  return ..." becomes "I want to return ...");
- **replies** when the agent's answer asks for something, first match wins: a confirmation
  ("confirm") gets "Yes, please go ahead."; the e-mail gets the e-mails of the known info, else
  the unknown info and the known info in the first person ("I do not remember my email
  address. I am Yusuf Rossi in zip code 19122."); a name, zip code or user id gets the known
  info; an order id gets the order ids of the reason for call (else "I do not know the order
  number.");
- **end**: no scripted turns, so the conversation ends when the agent's answer asks nothing the
  script can answer (the task done, or the agent stuck on something the user cannot give),
  or after ``MAX_TURNS`` user turns.

``goal`` is the whole reason for call (as tau2 writes it), ``persona`` the task instructions
and tau2's persona. Not modelled: conditional instructions ("if the agent asks for
confirmation again, ..."), hidden preferences revealed on request, and a user who changes
their mind: a model-driven simulator would follow those; the script says "yes" every time.
"""

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.conversation import ConversationScript, ScriptedReply
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.importers.benchmarks import tau2
from eval_pipeline.importers.imported import ImportedItems

MAX_TURNS = 10
CONFIRM = "Yes, please go ahead."
NO_ORDER = "I do not know the order number."
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ORDER = re.compile(r"#W\d{7}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

# Second person -> first person, longest forms first (case kept for the first letter).
_PRONOUNS = (
    ("you are", "I am"),
    ("you were", "I was"),
    ("you have", "I have"),
    ("you've", "I've"),
    ("you'd", "I'd"),
    ("you'll", "I'll"),
    ("you're", "I'm"),
    ("yourself", "myself"),
    ("yours", "mine"),
    ("your", "my"),
    ("you name", "my name"),
    ("you", "I"),
)
_PRONOUN = re.compile(
    r"\b(" + "|".join(re.escape(src) for src, _ in _PRONOUNS) + r")\b", re.IGNORECASE
)
_TO_FIRST = {src: dst for src, dst in _PRONOUNS}


def first_person(text: str) -> str:
    """``text`` (tau2's instructions to the simulated user) as the user would say it."""

    def swap(match: re.Match[str]) -> str:
        said = _TO_FIRST[match.group(0).lower()]
        return said if said.startswith("I") else _capitalised(said, match.group(0))

    return _PRONOUN.sub(swap, text.strip())


def _capitalised(said: str, original: str) -> str:
    return said[0].upper() + said[1:] if original[0].isupper() else said


def _clean(value: Any) -> str:
    text = str(value or "").strip()
    return "" if text in ("", ".") else text


def _sentence(text: str) -> str:
    return text if not text or text[-1] in ".!?" else f"{text}."


def _opening(reason: str) -> str:
    sentences = [s for s in _SENTENCE_END.split(reason) if _clean(s)]
    return first_person(sentences[0] if sentences else reason)


def _orders_reply(reason: str) -> str:
    orders = list(dict.fromkeys(_ORDER.findall(reason)))
    if not orders:
        return NO_ORDER
    if len(orders) == 1:
        return f"It is order {orders[0]}."
    return f"They are orders {', '.join(orders[:-1])} and {orders[-1]}."


def _emails_reply(emails: list[str]) -> str:
    if len(emails) == 1:
        return f"My e-mail is {emails[0]}."
    if len(emails) == 2:
        return f"I have two e-mails: {emails[0]} and {emails[1]}."
    return f"My e-mails are {', '.join(emails)}."


def conversation_script(task: dict[str, Any]) -> ConversationScript:
    """The scripted user of a tau2 task (see the module docstring)."""
    instructions = task["user_scenario"]["instructions"]
    reason = _clean(instructions.get("reason_for_call"))
    known = _sentence(first_person(_clean(instructions.get("known_info"))))
    unknown = _sentence(first_person(_clean(instructions.get("unknown_info"))))
    emails = list(dict.fromkeys(_EMAIL.findall(str(instructions.get("known_info") or ""))))
    identity = " ".join(p for p in (unknown, known) if p) or "I do not remember."
    replies = [
        ScriptedReply(r"\bconfirm", CONFIRM),
        ScriptedReply(
            r"e-?mail",
            _emails_reply(emails) if emails else identity,
        ),
        ScriptedReply(r"\b(?:name|zip|user id)\b", known or identity),
        ScriptedReply(r"\border (?:id|number)|\bwhich order", _orders_reply(reason)),
    ]
    persona = " ".join(
        p
        for p in (
            _clean(task["user_scenario"].get("persona")),
            _clean(instructions.get("task_instructions")),
        )
        if p
    )
    return ConversationScript(
        goal=reason or "(no reason for call)",
        persona=persona,
        user_turns=(),
        replies=tuple(replies),
        max_turns=MAX_TURNS,
    )


def multi_turn_item(task: dict[str, Any]) -> DatasetItem:
    """One tau2 task as a multi-turn item: ``tau2.task_item``'s reference, a scripted user."""
    item = tau2.task_item(task)
    script = conversation_script(task)
    opening = _opening(str(task["user_scenario"]["instructions"].get("reason_for_call") or ""))
    return dataclasses.replace(
        item,
        input_messages=({"role": "user", "content": opening or script.goal},),
        conversation=script,
        provenance={**item.provenance, "input_is": "scripted user (tau2 user scenario)"},
    )


def import_multi_turn(paths: Sequence[Path]) -> ImportedItems:
    """Multi-turn items of every tau2 tasks file in ``paths`` (``tau2.import_tasks``)."""
    imported = tau2.import_tasks(paths, multi_turn_item)
    provenance = {**imported.provenance, "format": "tau2", "multi_turn": True}
    return dataclasses.replace(imported, provenance=provenance)
