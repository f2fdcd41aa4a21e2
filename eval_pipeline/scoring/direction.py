"""Which way a metric is better, by id: what its scorer class declares.

Per-run metrics are looked up in ``scoring.registry`` (built-in and the suites' custom ones),
session metrics in ``scoring.sessions.registry``; an unknown id reads as higher-is-better (the
convention of every score the project writes). Used where only the id is at hand: pass^k
(``aggregate``) and the gate's edge (``evaluation.gate_direction``).
"""

from eval_pipeline.scoring.protocol import Direction


def lower_is_better(metric_id: str) -> bool:
    """Whether the metric's scorer declares lower values better (unknown ids: no)."""
    from eval_pipeline.scoring.registry import scorer_class
    from eval_pipeline.scoring.sessions.registry import session_metric_ids, session_scorer_class

    try:
        cls = (
            session_scorer_class(metric_id)
            if metric_id in session_metric_ids()
            else scorer_class(metric_id)
        )
    except KeyError:
        return False
    return getattr(cls, "metric_direction", None) == Direction.LOWER_IS_BETTER
