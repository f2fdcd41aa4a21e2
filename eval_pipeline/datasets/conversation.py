"""The multi-turn part of a dataset item: a user goal, a persona and a scripted user.

A multi-turn item is run as a conversation (``runners.conversation``): its ``input`` is the
user's first message, then a deterministic scripted policy (``runners.scripted_user``) gives
each next user message from what the agent just answered:

- ``replies``: conditioned messages. After each agent answer, the first reply whose ``when``
  (a regular expression, searched case-insensitively in the answer) matches is said; a reply
  may be said any number of times (a user answering the same question again).
- ``user_turns``: the scripted messages, said in order whenever no reply matches.

The conversation ends when neither has anything to say, or after ``max_turns`` user turns.
``goal`` and ``persona`` describe the user being played (for people, reports and a
model-driven simulator); the scripted policy does not read them. The same policy and the same
agent give the same conversation every time.
"""

import re
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_TURNS = 10


class ConversationError(ValueError):
    """A conversation block is malformed; the message names the field at fault."""


@dataclass(frozen=True)
class ScriptedReply:
    """Say ``say`` when the agent's last answer matches ``when`` (case-insensitive regex)."""

    when: str
    say: str

    def matches(self, answer: str) -> bool:
        """Whether the agent's answer triggers this reply."""
        return re.search(self.when, answer, re.IGNORECASE) is not None


@dataclass(frozen=True)
class ConversationScript:
    """How the user of a multi-turn item behaves (see the module docstring)."""

    goal: str
    persona: str = ""
    user_turns: tuple[str, ...] = ()
    replies: tuple[ScriptedReply, ...] = ()
    max_turns: int = DEFAULT_MAX_TURNS

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the item codec's and the user format's, which are the same)."""
        return {
            "goal": self.goal,
            "persona": self.persona,
            "user_turns": list(self.user_turns),
            "replies": [{"when": r.when, "say": r.say} for r in self.replies],
            "max_turns": self.max_turns,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "conversation") -> "ConversationScript":
        """Inverse of ``to_dict``.

        Raises:
            ConversationError: a field is missing or malformed (named with ``where``), or a
                ``when`` is not a valid regular expression.
        """
        if not isinstance(data, dict):
            raise ConversationError(f"{where}: expected an object, got {type(data).__name__}")
        goal = data.get("goal")
        if not isinstance(goal, str) or not goal.strip():
            raise ConversationError(f"{where}.goal: missing or not a non-empty string")
        turns = data.get("user_turns") or []
        if not isinstance(turns, list) or not all(isinstance(t, str) and t for t in turns):
            raise ConversationError(f"{where}.user_turns: expected a list of non-empty strings")
        replies = []
        for n, reply in enumerate(data.get("replies") or []):
            at = f"{where}.replies[{n}]"
            if not isinstance(reply, dict) or not all(
                isinstance(reply.get(k), str) and reply.get(k) for k in ("when", "say")
            ):
                raise ConversationError(f"{at}: expected {{when: REGEX, say: TEXT}}")
            try:
                re.compile(reply["when"])
            except re.error as exc:
                raise ConversationError(f"{at}.when: not a regular expression ({exc})") from exc
            replies.append(ScriptedReply(reply["when"], reply["say"]))
        max_turns = data.get("max_turns", DEFAULT_MAX_TURNS)
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ConversationError(f"{where}.max_turns: expected a positive integer")
        persona = data.get("persona") or ""
        if not isinstance(persona, str):
            raise ConversationError(f"{where}.persona: expected a string")
        return cls(goal, persona, tuple(turns), tuple(replies), max_turns)
