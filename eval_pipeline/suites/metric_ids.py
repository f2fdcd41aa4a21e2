"""Which metric ids a suite or a risk tier may name: the scoring registry is the authority."""

from eval_pipeline.scoring.registry import JUDGE_METRICS, registered_metric_ids

LIBRARY_JUDGE_METRICS = frozenset({"agent_goal_accuracy"})
"""Library-qualified metrics judged by an LLM beyond the built-in judge metrics."""


def needs_judge(metric_id: str) -> bool:
    """Whether ``metric_id`` (bare or library-qualified, ``deepeval.faithfulness``) is judged."""
    return metric_id.rsplit(".", 1)[-1] in JUDGE_METRICS | LIBRARY_JUDGE_METRICS


def known_metric_ids() -> frozenset[str]:
    """Registered metric ids (bare, without ``@version``)."""
    return frozenset(str(m).split("@", 1)[0] for m in registered_metric_ids())
