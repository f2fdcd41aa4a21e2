"""``handoff_quality``: did hand-offs carry what the task needs, without redone or undone work?"""

import json
from collections.abc import Sequence
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.arguments import parse_arguments
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.tool_kinds import DEFAULT_READ_PREFIXES
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun, ToolCall

INVERSE_VERBS = {
    "book": "cancel",
    "reserve": "cancel",
    "create": "delete",
    "add": "remove",
    "enable": "disable",
    "open": "close",
    "assign": "unassign",
    "subscribe": "unsubscribe",
    "lock": "unlock",
    "schedule": "cancel",
    "invite": "remove",
    "insert": "delete",
}
"""First word of a write tool -> first word of the tool that reverts it."""


HANDOFF_TOOL_PREFIXES = ("transfer_to", "handoff", "hand_off")
"""Expected calls whose name starts with one of these are hand-offs (``transfer_to_agent``)."""


def expected_handoff(item: DatasetItem) -> str | None:
    """Why ``item`` expects a hand-off (None when it does not)."""
    if item.required_entities:
        return "the item lists the entities a hand-off must carry"
    for trajectory in item.trajectories:
        for call in trajectory:
            if call.name.lower().startswith(HANDOFF_TOOL_PREFIXES):
                return f"the item's trajectory calls {call.name}"
    return None


def _verb(name: str) -> str:
    return name.lower().replace(".", "_").split("_", 1)[0]


def _values(call: ToolCall) -> set[str]:
    arguments = parse_arguments(call.arguments) or {}
    return {
        json.dumps(v, sort_keys=True, default=str)
        for v in arguments.values()
        if not isinstance(v, bool) and len(str(v)) >= 3
    }


class HandoffQuality(ScorerBase):
    """Entity coverage of hand-offs, zeroed when one agent redid or undid another's write.

    Range [0, 1], higher is better. Coverage: for each hand-off, the share of the item's
    ``required_entities`` found (case-insensitive) in the context the receiving agent got
    (``Handoff.context``), averaged over hand-offs (1 when the item lists none). Conflicts: a
    successful write (a call whose name does not start with a read prefix) repeated with equal
    arguments by a different agent, or reverted by a different agent (inverse verb such as
    book/cancel, add/remove, sharing an argument value). Any conflict makes the value 0.

    A run without a hand-off scores 0 when the item expects one (it lists the entities a
    hand-off must carry, or its trajectory has a transfer call) and is ``not_applicable``
    otherwise: a single-agent task neither passes nor fails a hand-off metric. Version 2 (1
    called every run without a hand-off unscored, so missing).

    Reads: run ``handoffs``, ``tool_calls``; item ``required_entities``,
    ``expected_tool_calls``, ``alternative_trajectories``.
    """

    metric_id = "handoff_quality"
    layer = Layer.MULTI_AGENT
    not_applicable_when = "no hand-off is expected and none is made"
    metric_version = 2
    run_fields = frozenset({"handoffs", "tool_calls"})
    item_fields = frozenset(
        {"required_entities", "expected_tool_calls", "alternative_trajectories"}
    )

    def __init__(self, read_prefixes: Sequence[str] | None = None) -> None:
        self._prefixes = tuple(p.lower() for p in (read_prefixes or DEFAULT_READ_PREFIXES))
        self._custom = read_prefixes is not None

    @property
    def arguments(self) -> dict[str, Any]:
        """Construction arguments."""
        return {"read_prefixes": list(self._prefixes)} if self._custom else {}

    def conflicts(self, calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        """Writes redone or undone by a different agent, in call order."""
        prefixes = self._prefixes
        # Writes: successful calls whose name does not start with a read prefix.
        writes = [c for c in calls if c.error is None and not c.name.lower().startswith(prefixes)]
        if len(writes) < 2:
            return []
        verbs = [_verb(c.name) for c in writes]
        found: list[dict[str, Any]] = []
        for i, first in enumerate(writes):
            undoing = INVERSE_VERBS.get(verbs[i])
            for j in range(i + 1, len(writes)):
                later = writes[j]
                if first.agent_name == later.agent_name:
                    continue
                if later.name == first.name and (
                    parse_arguments(later.arguments) == parse_arguments(first.arguments)
                ):
                    kind = "redone"
                elif undoing == verbs[j] and (_values(first) & _values(later)):
                    kind = "undone"
                else:
                    continue
                found.append(
                    {
                        "kind": kind,
                        "tool": first.name,
                        "by": later.name,
                        "first_agent": first.agent_name,
                        "later_agent": later.agent_name,
                        "span_ids": [first.span_id, later.span_id],
                    }
                )
        return found

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        if not run.handoffs:
            expected = expected_handoff(item)
            if expected is None:
                return self.not_applicable("no hand-off expected and none made")
            return self.scored(0.0, reason=f"expected a hand-off ({expected}), none made")
        coverage: list[float] = []
        gaps: list[dict[str, Any]] = []
        for handoff in run.handoffs:
            context = handoff.context.lower()
            absent = [e for e in item.required_entities if e.lower() not in context]
            if item.required_entities:
                coverage.append(1 - len(absent) / len(item.required_entities))
            if absent:
                gaps.append(
                    {
                        "to_agent": handoff.to_agent,
                        "span_id": handoff.span_id,
                        "missing_entities": absent,
                    }
                )
        value = sum(coverage) / len(coverage) if coverage else 1.0
        conflicts = self.conflicts(run.tool_calls)
        evidence = {"missing": gaps, "conflicts": conflicts}
        spans = [g["span_id"] for g in gaps] + [s for c in conflicts for s in c["span_ids"]]
        if conflicts:
            c = conflicts[0]
            return self.scored(
                0.0,
                span_ids=spans,
                evidence=evidence,
                reason=f"{c['later_agent']} {c['kind']} {c['first_agent']}'s "
                f"{c['tool']} (via {c['by']})",
            )
        reason = (
            f"hand-off to {gaps[0]['to_agent']} lacked {gaps[0]['missing_entities']}"
            if gaps
            else "hand-offs carried every required entity"
        )
        return self.scored(
            value,
            reason=reason,
            span_ids=spans or [h.span_id for h in run.handoffs],
            evidence=evidence,
        )
