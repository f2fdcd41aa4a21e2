"""Which metric ids a suite or a risk tier may name: the scoring registry is the authority."""

from eval_pipeline.scoring.registry import registered_metric_ids, scorer_needs_judge


def needs_judge(metric_id: str) -> bool:
    """Whether ``metric_id``'s scorer declares that it needs a judge (False for unknown ids)."""
    return metric_id in registered_metric_ids() and scorer_needs_judge(metric_id)


def known_metric_ids() -> frozenset[str]:
    """Registered metric ids (bare, without ``@version``)."""
    return frozenset(str(m).split("@", 1)[0] for m in registered_metric_ids())
