"""Which metric ids a suite or a risk tier may name: the scoring registry is the authority."""

from eval_pipeline.scoring.registry import registered_metric_ids


def known_metric_ids() -> frozenset[str]:
    """Registered metric ids (bare, without ``@version``)."""
    return frozenset(str(m).split("@", 1)[0] for m in registered_metric_ids())
