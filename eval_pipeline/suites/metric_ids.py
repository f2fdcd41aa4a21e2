"""Which metric ids a suite or a risk tier may name: the scoring registries are the authority.

A suite may gate per-run metrics (``scoring.registry``) and session metrics
(``scoring.sessions.registry``, scored per conversation by ``evaluation.sessions_stage``).
"""

from eval_pipeline.scoring.registry import registered_metric_ids
from eval_pipeline.scoring.sessions.registry import session_metric_ids


def known_metric_ids() -> frozenset[str]:
    """Registered metric ids, per-run and session (bare, without ``@version``)."""
    bare = frozenset(str(m).split("@", 1)[0] for m in registered_metric_ids())
    return bare | session_metric_ids()
