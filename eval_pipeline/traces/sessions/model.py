"""The session model: a conversation's runs as turns, with its scope and how it ended.

A session is the runs sharing a conversation id (``gen_ai.conversation.id``, OpenInference
``session.id``; ``Span.conversation_id`` / ``AgentRun.conversation_id`` after normalisation)
within one build. Each run is one turn: the user's input, the agent's answer, the tool calls
it made, its errors, its times and tokens. Types are frozen, like the run model, so scorers
may share a session.
"""

from dataclasses import dataclass

from eval_pipeline.traces.model import AgentRun, ToolCall
from eval_pipeline.traces.sessions.end import EndReason

__all__ = ["EndReason", "Session", "Turn"]


@dataclass(frozen=True)
class Turn:
    """One turn (one run): ``index`` counts from 1 in start order."""

    index: int
    run: AgentRun

    @property
    def trace_id(self) -> str:
        """The turn's trace id."""
        return self.run.trace_id

    @property
    def user_input(self) -> str | None:
        """What the user said in this turn (the run's first user message)."""
        return self.run.user_input

    @property
    def answer(self) -> str | None:
        """What the agent answered (the run's final answer)."""
        return self.run.final_answer

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls executed in this turn, in order."""
        return self.run.tool_calls

    @property
    def errors(self) -> tuple[str, ...]:
        """``name: message`` of every error span of the turn, in start order."""
        return tuple(
            f"{s.name}: {s.status_message or s.attributes.get('error.type') or 'error'}"
            for s in self.run.spans
            if s.is_error
        )

    @property
    def start_time_unix_nano(self) -> int:
        """When the turn's first span started."""
        return self.run.start_time_unix_nano

    @property
    def end_time_unix_nano(self) -> int:
        """When the turn's last span ended (its start when no span has an end)."""
        return max(self.run.end_time_unix_nano, self.run.start_time_unix_nano)

    @property
    def duration_s(self) -> float:
        """The turn's wall duration in seconds."""
        return self.run.duration_s

    @property
    def input_tokens(self) -> int:
        """Input tokens of the turn's model calls."""
        return self.run.input_tokens

    @property
    def output_tokens(self) -> int:
        """Output tokens of the turn's model calls."""
        return self.run.output_tokens


@dataclass(frozen=True)
class Session:
    """One conversation within one build: its turns in order, and whether it has ended.

    ``build`` is the build the turns were read from (else the first turn's eval-context
    build). ``ended`` is True when a turn carries the end marker (``end_reason`` ``marker``,
    ``end_detail`` the marker's value when it is a text) or when the session has been idle for
    the timeout at the clock it was assembled with (``idle``); ``ended_at_unix_nano`` is the
    marked span's end, or the last activity plus the timeout.
    """

    session_id: str
    build: str | None
    turns: tuple[Turn, ...]
    ended: bool = False
    end_reason: str | None = None
    end_detail: str | None = None
    ended_at_unix_nano: int | None = None

    @property
    def start_time_unix_nano(self) -> int:
        """When the first turn started (0 for a session without turns)."""
        return min((t.start_time_unix_nano for t in self.turns), default=0)

    @property
    def last_activity_unix_nano(self) -> int:
        """When the latest turn ended: the clock the idle timeout runs from."""
        return max((t.end_time_unix_nano for t in self.turns), default=0)

    @property
    def duration_s(self) -> float:
        """From the first turn's start to the last activity, in seconds."""
        start, last = self.start_time_unix_nano, self.last_activity_unix_nano
        return (last - start) / 1e9 if last > start else 0.0

    @property
    def input_tokens(self) -> int:
        """Input tokens over every turn."""
        return sum(t.input_tokens for t in self.turns)

    @property
    def output_tokens(self) -> int:
        """Output tokens over every turn."""
        return sum(t.output_tokens for t in self.turns)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Every tool call of the session, turn by turn."""
        return tuple(call for turn in self.turns for call in turn.tool_calls)

    @property
    def errors(self) -> tuple[str, ...]:
        """Every error of the session, turn by turn."""
        return tuple(error for turn in self.turns for error in turn.errors)

    @property
    def item_id(self) -> str | None:
        """The dataset item the session was run for (the first turn naming one), if any."""
        return next(
            (t.run.eval_context.item_id for t in self.turns if t.run.eval_context.item_id), None
        )

    @property
    def run_index(self) -> int | None:
        """The repetition of the item this session is (the first turn naming one), if any."""
        return next(
            (
                t.run.eval_context.run_index
                for t in self.turns
                if t.run.eval_context.run_index is not None
            ),
            None,
        )
