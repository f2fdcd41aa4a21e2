"""``session.goal_completed`` and ``session.turns_to_resolution``: the end state over turns.

Both judge the dataset item's reference end state (``item.expected_end_state``, the format of
``scoring.end_state``: the state-changing actions that must have been executed, optionally the
write tools) with ``task_success``'s rule, applied to the tool calls of several turns together:
the session's end state is what all its turns' calls did. ``goal_completed`` asks it of the
whole session; ``turns_to_resolution`` of each prefix (turns 1..k), to find the first turn
after which the end state was reached. Neither applies without an item or an end state; an end
state not in the format leaves them unscored.
"""

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline.scoring.scorers.task_success import TaskSuccess
from eval_pipeline.scoring.sessions.base import SessionScorerBase
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.sessions.model import Session, Turn

_NO_END_STATE = "the dataset item gives no reference end state"


def _together(session: Session, turns: tuple[Turn, ...]) -> AgentRun:
    """One run holding the tool calls of ``turns``, in order (what ``task_success`` reads)."""
    last = turns[-1].trace_id if turns else session.session_id
    return AgentRun(
        trace_id=last,
        root_span_id=None,
        spans=(),
        tool_calls=tuple(call for turn in turns for call in turn.tool_calls),
    )


def _end_state(session: Session, turns: tuple[Turn, ...], item: DatasetItem) -> Verdict:
    return TaskSuccess().verdict(_together(session, turns), item)


class GoalCompleted(SessionScorerBase):
    """1 when the session's turns together reached the item's reference end state, else 0.

    Range {0, 1}, higher is better: ``task_success``'s rule (every expected state-changing
    action performed successfully, no other write) over the tool calls of every turn. Not
    applicable without a dataset item giving ``expected_end_state``.
    """

    metric_id = "session.goal_completed"
    not_applicable_when = _NO_END_STATE
    value_set = (0.0, 1.0)
    run_fields = frozenset({"turns.tool_calls"})
    item_fields = frozenset({"expected_end_state"})

    def session_verdict(self, session: Session, item: DatasetItem | None) -> Verdict:
        """Judge one session (see the class docstring)."""
        if item is None or item.expected_end_state is None:
            return self.not_applicable(_NO_END_STATE)
        verdict = _end_state(session, session.turns, item)
        return verdict._replace(reason=f"after {len(session.turns)} turn(s): {verdict.reason}")


class TurnsToResolution(SessionScorerBase):
    """1 / the number of turns it took to reach the item's reference end state (0: never).

    Range [0, 1], higher is better: k is the first turn after which the calls of turns 1..k
    together reach ``expected_end_state`` (``task_success``'s rule), and the value is 1/k
    (1 when the first turn resolves it, 0.5 the second, ...); 0 when the session never
    reaches it. Evidence gives ``turns_to_resolution`` (k, or None) and the session's turns.
    Not applicable without a dataset item giving ``expected_end_state``.
    """

    metric_id = "session.turns_to_resolution"
    not_applicable_when = _NO_END_STATE
    run_fields = frozenset({"turns.tool_calls"})
    item_fields = frozenset({"expected_end_state"})

    def session_verdict(self, session: Session, item: DatasetItem | None) -> Verdict:
        """Judge one session (see the class docstring)."""
        if item is None or item.expected_end_state is None:
            return self.not_applicable(_NO_END_STATE)
        verdict = None
        for k in range(1, len(session.turns) + 1):
            verdict = _end_state(session, session.turns[:k], item)
            if verdict.status != ScoreStatus.SCORED:
                return verdict  # the end state is not in the format: unscored, says why
            if verdict.value == 1.0:
                return self.scored(
                    1.0 / k,
                    span_ids=verdict.span_ids,
                    evidence={"turns_to_resolution": k, "turns": len(session.turns)},
                    reason=f"end state reached after turn {k} of {len(session.turns)}",
                )
        reason = verdict.reason if verdict is not None else "the session has no turns"
        return self.scored(
            0.0,
            evidence={"turns_to_resolution": None, "turns": len(session.turns)},
            reason=f"end state not reached in {len(session.turns)} turn(s): {reason}",
        )
