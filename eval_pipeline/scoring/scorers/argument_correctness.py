"""``argument_correctness``: were the tools called with acceptable arguments (BFCL semantics)?"""

from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.matching import align, call_check, tool_schemas, trajectories
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.redacted_calls import redaction_reason
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun, ToolCall


def _first_error(failure: dict[str, Any]) -> str:
    errors = [e for per_call in failure["errors"] for e in per_call]
    return f"{failure['tool']}: {errors[0] if errors else 'no acceptable call'}"


class ArgumentCorrectness(ScorerBase):
    """Share of the expected calls the run made with acceptable arguments.

    Range [0, 1], higher is better. Among the expected steps whose tool the run called at all,
    the share that some call satisfied with acceptable arguments under the Berkeley Function
    Calling Leaderboard's checker (``scoring.arguments``): type coercion, several acceptable
    values per parameter, ``""`` = omittable, nested dicts and lists, string normalisation,
    order-insensitive arrays where the schema says so. The schema comes from the item's
    ``tool_schemas``; without one, types are inferred from the acceptable values. Scored
    against the acceptable trajectory sharing most tools with the run (then the best value).
    Not applicable when the item has no expected call with arguments; unscored when the run
    called none of the expected tools (that is ``tool_correctness``'s failure, not an argument
    failure), and when the redaction policy dropped the arguments of a call to an expected tool
    before storage (the reason names the policy; ``scoring.redacted_calls``).

    Reads: run ``tool_calls``; item ``expected_tool_calls``, ``alternative_trajectories``,
    ``tool_schemas``.
    """

    metric_id = "argument_correctness"
    layer = Layer.TOOL_USE
    not_applicable_when = "the item lists no expected call with arguments"
    run_fields = frozenset({"tool_calls"})
    item_fields = frozenset({"expected_tool_calls", "alternative_trajectories", "tool_schemas"})

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the class docstring)."""
        schemas = tool_schemas(item)
        calls = run.tool_calls
        options = trajectories(item)
        by_name: dict[str, list[ToolCall]] = {}
        for call in calls:
            by_name.setdefault(call.name, []).append(call)
        # Only a call without arguments can have had them dropped (``dropping_policy``).
        if any([call.arguments is None for call in calls]):
            expected_names = {step.name for steps in options for step in steps}
            redacted = redaction_reason(run, (c for c in calls if c.name in expected_names))
            if redacted is not None:
                return self.unscored(redacted)
        best: tuple[tuple[int, float], int, list[dict[str, Any]], list[str]] | None = None
        any_arguments = False
        for index, steps in enumerate(options):
            checked = [i for i, s in enumerate(steps) if s.arguments and s.name in by_name]
            any_arguments = any_arguments or any([s.arguments for s in steps])
            if not checked:
                continue
            alignment = align(
                calls,
                tuple([steps[i] for i in checked]),
                schemas,
                trajectory_index=index,
                remember=False,
            )
            value = len(alignment.pairs) / len(checked)
            failures: list[dict[str, Any]] = []
            matched = {step for step, _ in alignment.pairs}
            spans: list[str] = []
            for position, step_index in enumerate(checked):
                step = steps[step_index]
                candidates = by_name[step.name]
                spans.extend([c.span_id for c in candidates])
                if position in matched:
                    continue
                failures.append(
                    {
                        "tool": step.name,
                        "errors": [list(call_check(c, step, schemas).errors) for c in candidates],
                        "span_ids": [c.span_id for c in candidates],
                    }
                )
            key = (len(checked), value)
            if best is None or key > best[0]:
                best = (key, index, failures, spans)
        if not any_arguments:
            return self.not_applicable("the item lists no expected call with arguments")
        if best is None:
            return self.unscored("run called none of the expected tools")
        (_, value), index, failures, spans = best
        reason = (
            "all arguments acceptable"
            if not failures
            else f"{len(failures)} call(s) with unacceptable arguments: "
            + "; ".join(_first_error(f) for f in failures)
        )
        return self.scored(
            value,
            reason=reason,
            span_ids=spans,
            evidence={"trajectory": index, "failures": failures},
        )
