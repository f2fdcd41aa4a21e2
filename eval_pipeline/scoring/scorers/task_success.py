"""``task_success``: did the run leave the world in the expected end state?"""

from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.arguments import parse_arguments
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.end_state import EndStateFormatError, parse_end_state, performs
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun, ToolCall


class TaskSuccess(ScorerBase):
    """1 when every expected state-changing action was performed (and no other write), else 0.

    Range {0, 1}, higher is better, tau-bench style. ``item.expected_end_state`` uses the
    format of ``scoring.end_state``: the actions that must have been executed successfully
    (name and arguments, tau2's per-action comparison) and, optionally, the write tools, any
    other successful call to which fails the run. Not applicable when the item gives no
    expected end state; unscored when it gives one not in that format (the reason says why).

    Reads: run ``tool_calls``; item ``expected_end_state``.
    """

    metric_id = "task_success"
    layer = Layer.TASK
    not_applicable_when = "the item gives no expected end state"
    value_set = (0.0, 1.0)
    run_fields = frozenset({"tool_calls"})
    item_fields = frozenset({"expected_end_state"})

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        if item.expected_end_state is None:
            return self.not_applicable("the item gives no expected end state")
        try:
            state = parse_end_state(item.expected_end_state)
        except EndStateFormatError as exc:
            return self.unscored(str(exc))
        # Each successful call's arguments parsed once (``action_matches`` parses them per
        # action). A dict is read as it is (``performs`` only reads it); other forms are parsed.
        # Grouped by tool name: an action is asked of the calls to its tool only.
        succeeded = [
            (c, c.arguments if type(c.arguments) is dict else parse_arguments(c.arguments))
            for c in run.tool_calls
            if c.error is None
        ]
        by_name: dict[str, list[tuple[ToolCall, Any]]] = {}
        for pair in succeeded:
            by_name.setdefault(pair[0].name, []).append(pair)
        used: set[str] = set()
        missing: list[dict[str, Any]] = []
        for action in state.actions:
            name = action.name
            for call, arguments in by_name.get(name, ()):
                if call.span_id not in used and performs(action, name, arguments):
                    used.add(call.span_id)
                    break
            else:
                missing.append(
                    {
                        "name": action.name,
                        "arguments": action.arguments,
                        "action_id": action.action_id,
                    }
                )
        stray = (
            [
                {"tool": c.name, "span_id": c.span_id}
                for c, arguments in succeeded
                if c.name in state.write_tools
                and c.span_id not in used
                and not any(performs(a, c.name, arguments) for a in state.actions)
            ]
            if state.write_tools
            else []
        )
        evidence = {
            "missing_actions": missing,
            "unexpected_writes": stray,
            "performed": sorted(used),
        }
        if missing:
            return self.scored(
                0.0,
                evidence=evidence,
                span_ids=[c.span_id for c in run.tool_calls],
                reason=f"{len(missing)} expected action(s) not performed, "
                f"first: {missing[0]['name']}",
            )
        if stray:
            return self.scored(
                0.0,
                evidence=evidence,
                span_ids=[s["span_id"] for s in stray],
                reason=f"unexpected write: {stray[0]['tool']}",
            )
        return self.scored(
            1.0,
            evidence=evidence,
            span_ids=sorted(used),
            reason=f"all {len(state.actions)} expected action(s) performed",
        )
