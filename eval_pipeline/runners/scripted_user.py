"""The deterministic scripted user of a multi-turn item (``datasets.conversation``).

``ScriptedUser.next_message(answer)`` gives what the user says after the agent's ``answer``:
the first conditioned reply whose pattern matches the answer, else the next scripted turn,
else None (the user has nothing more to say: the conversation is over). The same script and
the same answers always give the same messages, so a conversation is reproducible from the
agent alone; the turn limit is the driver's (``runners.conversation``).
"""

from eval_pipeline.datasets.conversation import ConversationScript


class ScriptedUser:
    """Plays one conversation's user from its script (one instance per conversation)."""

    def __init__(self, script: ConversationScript) -> None:
        self.script = script
        self._next_turn = 0

    def next_message(self, answer: str) -> str | None:
        """The user's next message after ``answer`` (None: nothing more to say)."""
        for reply in self.script.replies:
            if reply.matches(answer):
                return reply.say
        if self._next_turn < len(self.script.user_turns):
            self._next_turn += 1
            return self.script.user_turns[self._next_turn - 1]
        return None
