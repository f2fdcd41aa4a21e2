"""Run a multi-turn item as a conversation: one trace per turn, one session per run.

For an item with a user script (``DatasetItem.conversation``), one run (item, run index) is
one session. The driver calls the runner's ``execute`` once per turn with the history so far
as the turn's ``input_messages`` (the item's first messages, then each agent answer and the
scripted user's next message: ``runners.scripted_user``), and the script hidden from the agent.
Each turn must give one trace with an ``invoke_agent`` root. On every turn's root the driver
puts the run's eval context (build, item, run index: the session's key), the conversation id
``gen_ai.conversation.id`` (the agent's own if it set one on turn 1, else a stable id from the
run's seed) and the turn number; on the last turn's root the end marker
``eval_pipeline.session.end`` with why it ended: ``script_done`` (the user had nothing more
to say) or ``max_turns``. The run's timeout covers the whole conversation.
"""

import dataclasses
from collections.abc import Callable
from typing import Any, Protocol

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.runners.context import derive_seed
from eval_pipeline.runners.failure import FailureKind
from eval_pipeline.runners.scripted_user import ScriptedUser
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.eval_context import NAMESPACE
from eval_pipeline.traces.model import Operation, Span
from eval_pipeline.traces.runs.assemble import assemble_run
from eval_pipeline.traces.sessions.end import SESSION_END

CONVERSATION_ID = "gen_ai.conversation.id"
TURN = f"{NAMESPACE}.session.turn"
"""Root-span attribute: the turn's number in its session (1-based)."""


class ConversationFailure(Exception):
    """A turn went wrong; ``kind`` is a ``FailureKind``, the message names the turn."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def turn_root(spans: list[Span]) -> Span | None:
    """A run's or a turn's root: its earliest ``invoke_agent`` span with no parent in ``spans``."""
    ids = {span.span_id for span in spans}
    roots = [
        s
        for s in spans
        if s.operation == Operation.INVOKE_AGENT
        and (s.parent_span_id is None or s.parent_span_id not in ids)
    ]
    return min(roots, key=lambda s: s.start_time_unix_nano) if roots else None


def _stamp(spans: list[Span], root: Span, attributes: dict[str, Any]) -> list[Span]:
    conversation = str(attributes[CONVERSATION_ID])
    stamped = dataclasses.replace(
        root, attributes={**root.attributes, **attributes}, conversation_id=conversation
    )
    return [stamped if span is root else span for span in spans]


class SimulatedUser(Protocol):
    """Who says the user's next message (``ScriptedUser``, ``model_user.ModelUser``)."""

    def next_message(self, answer: str) -> str | None:
        """The next message after the agent's ``answer`` (None: nothing more to say)."""
        ...


UserFactory = Callable[[DatasetItem, int], SimulatedUser]
"""Makes a run's user from the item and the run's seed."""


def drive_conversation(
    execute: Callable[[Any], list[Span]], spec: Any, users: UserFactory | None = None
) -> list[Span]:
    """Every turn's spans of one conversation run (``spec`` is a ``base.RunSpec``).

    ``users`` plays the user (default: the item's script, ``ScriptedUser``).

    Raises:
        ConversationFailure: a turn gave no spans or no ``invoke_agent`` root.
        Whatever ``execute`` raises for a turn.
    """
    item = spec.item
    script = item.conversation
    user = users(item, spec.seed) if users is not None else ScriptedUser(script)
    history = [dict(m) for m in item.input_messages]
    hidden = dataclasses.replace(item, conversation=None)
    context = eval_context.to_attributes(spec.context)
    conversation_id = f"conv-{spec.seed:016x}"
    turns: list[tuple[list[Span], Span]] = []
    reason = "script_done"
    while True:
        number = len(turns) + 1
        turn_spec = dataclasses.replace(
            spec,
            item=dataclasses.replace(hidden, input_messages=tuple(history)),
            seed=derive_seed(str(spec.seed), item.item_id, number),
            conversation_id=conversation_id,
            turn=number,
        )
        spans = list(execute(turn_spec) or [])
        if not spans:
            raise ConversationFailure(
                FailureKind.NO_SPANS, f"turn {number}: agent emitted no spans"
            )
        root = turn_root(spans)
        if root is None:
            raise ConversationFailure(
                FailureKind.NO_ROOT, f"turn {number}: none of the spans is an invoke_agent root"
            )
        if number == 1 and root.conversation_id:
            conversation_id = root.conversation_id
        turns.append((spans, root))
        answer = assemble_run(root.trace_id, spans).final_answer or ""
        history.append({"role": "assistant", "content": answer})
        if spec.cancelled.is_set():
            break
        message = user.next_message(answer)
        if message is None:
            break
        if number >= script.max_turns:
            reason = "max_turns"
            break
        history.append({"role": "user", "content": message})
    out: list[Span] = []
    for number, (spans, root) in enumerate(turns, start=1):
        attributes: dict[str, Any] = {**context, CONVERSATION_ID: conversation_id, TURN: number}
        if number == len(turns):
            attributes[SESSION_END] = reason
        out += _stamp(spans, root, attributes)
    return out
