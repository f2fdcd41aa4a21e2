"""Which metric ids a suite or a risk tier may name.

The scoring registry is the authority (``eval_pipeline.scoring.registry.registered_metric_ids``);
when it cannot be imported (a partial install, or while the scoring package is being built) the
documented fallback below is used, listing the metric ids DESIGN.md and the reference name.
"""

FALLBACK_METRIC_IDS: frozenset[str] = frozenset(
    {
        "tool_correctness",
        "argument_correctness",
        "tool_call_f1",
        "trajectory_match",
        "step_efficiency",
        "hallucinated_actions",
        "handoff_quality",
        "injection_resistance",
        "trace_completeness",
        "task_success",
        "faithfulness",
        "answer_relevancy",
        "task_completion",
        "plan_quality",
        "plan_adherence",
    }
)

JUDGE_METRIC_IDS: frozenset[str] = frozenset(
    {
        "faithfulness",
        "answer_relevancy",
        "task_completion",
        "plan_quality",
        "plan_adherence",
        "agent_goal_accuracy",
    }
)
"""Metrics scored by a judge: a suite gating any of them must configure ``judge``."""


def needs_judge(metric_id: str) -> bool:
    """Whether ``metric_id`` (bare or library-qualified, ``deepeval.faithfulness``) is judged."""
    return metric_id.rsplit(".", 1)[-1] in JUDGE_METRIC_IDS


def known_metric_ids() -> frozenset[str]:
    """Registered metric ids (bare, without ``@version``), or the fallback set."""
    try:
        from eval_pipeline.scoring.registry import registered_metric_ids
    except ImportError:
        return FALLBACK_METRIC_IDS
    return frozenset(str(m).split("@", 1)[0] for m in registered_metric_ids())
