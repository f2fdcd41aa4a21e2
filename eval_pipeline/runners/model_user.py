"""A model-driven user of a multi-turn item: the suite's judge endpoint plays the customer.

The scripted user (``runners.scripted_user``) follows fixed rules; this one asks a model, the
way tau2-bench's user simulator does: the model gets the user's goal and persona (the item's
``conversation`` block: for tau2 tasks, the user scenario), the conversation so far seen from
the user's side, and tau2's rules (one short message at a time, give only what is asked, never
invent information, say ``###STOP###`` when the goal is met or cannot be met). It answers a
``{"message", "stop"}`` JSON object through the judge's ``complete`` (an OpenAI-compatible
endpoint), so it is:

- **seeded**: the run's seed is part of the prompt (and the endpoint's own seed is the judge's),
  so two runs of an item are two users, and a run replays the same user;
- **cached**: the judge's completion cache (``judges.cache``) keys each turn by the prompt,
  which holds the whole conversation so far, so a rerun of a conversation asks nothing again;
- **bounded**: the driver's turn limit (``max_turns``) stops it, as for the script.

``ModelUser.next_message`` has the scripted user's signature, so the driver
(``runners.conversation``) takes either (``Runner.simulated_user``).
"""

import json
from collections.abc import Callable
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.completion import CompletingJudge, CompletionRequest

STOP = "###STOP###"
"""tau2-bench's user-simulator token for "the conversation is over"."""

REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string"}, "stop": {"type": "boolean"}},
    "required": ["message", "stop"],
    "additionalProperties": False,
}

RULES = (
    "You are playing a customer talking to a customer-service agent. Follow the goal below. "
    "Write only your next message to the agent, one or two sentences. Give information only "
    "when the agent asks for it, and only information stated below; never invent any. When "
    f"the goal is met, or cannot be met, set stop to true (or write {STOP}). "
    'Answer with a JSON object {"message": "...", "stop": false}.'
)


class ModelUser:
    """Plays one conversation's user through a completing judge (one instance per run)."""

    def __init__(self, item: DatasetItem, judge: CompletingJudge, *, seed: int) -> None:
        if item.conversation is None:
            raise ValueError(f"item {item.item_id}: not a multi-turn item (no conversation)")
        self.script = item.conversation
        self.judge = judge
        self.seed = seed
        self.transcript: list[tuple[str, str]] = [
            ("customer", str(m.get("content", "")))
            for m in item.input_messages
            if m.get("role") == "user"
        ]

    def prompt(self) -> str:
        """The prompt of the next turn: rules, goal, persona, seed, the conversation so far."""
        lines = [RULES, "", f"Goal: {self.script.goal}"]
        if self.script.persona:
            lines.append(f"Persona: {self.script.persona}")
        lines += [f"Seed: {self.seed}", "", "Conversation so far:"]
        lines += [f"{who}: {text}" for who, text in self.transcript]
        lines.append("Your next message as the customer:")
        return "\n".join(lines)

    def next_message(self, answer: str) -> str | None:
        """The user's next message after ``answer`` (None: the user stops).

        Raises:
            JudgeError: the endpoint finally failed to answer (the run fails, like a turn).
        """
        self.transcript.append(("agent", answer))
        text = self.judge.complete(
            CompletionRequest(self.prompt(), REPLY_SCHEMA, "user_turn", caller="user-simulator")
        )
        message, stop = _parse(text)
        if stop or not message:
            return None
        self.transcript.append(("customer", message))
        return message


def _parse(text: str) -> tuple[str, bool]:
    """(message, stop) from the model's reply: the JSON object, else the text itself."""
    try:
        reply = json.loads(text)
    except ValueError:
        reply = {"message": text, "stop": False}
    if not isinstance(reply, dict):
        reply = {"message": str(reply), "stop": False}
    message = str(reply.get("message") or "").strip()
    stop = bool(reply.get("stop")) or STOP in message
    return message.replace(STOP, "").strip(), stop


def model_users(judge: CompletingJudge) -> Callable[[DatasetItem, int], ModelUser]:
    """A ``Runner.simulated_user`` factory: each run's user played through ``judge``."""
    return lambda item, seed: ModelUser(item, judge, seed=seed)
