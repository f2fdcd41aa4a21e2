"""Session metric id -> scorer class, and their catalogue cards.

Kept apart from the per-run registry (``scoring.registry``) so per-run scoring, suites' gated
metric ids and ``select_metric_ids`` never hand a run to a session scorer; ``metrics list``
shows both (a session metric's layer is ``session``).
"""

from typing import Any

from eval_pipeline.scoring.catalogue import BUILT_IN, MetricCard, card_of
from eval_pipeline.scoring.sessions.base import SessionScorerBase
from eval_pipeline.scoring.sessions.goal import GoalCompleted, TurnsToResolution
from eval_pipeline.scoring.sessions.knowledge_retention import KnowledgeRetention
from eval_pipeline.scoring.sessions.repeated_requests import RepeatedUserRequests

_SESSION: dict[str, type[SessionScorerBase]] = {
    cls.metric_id: cls
    for cls in (RepeatedUserRequests, KnowledgeRetention, GoalCompleted, TurnsToResolution)
}
"""Metric id -> scorer class (imported statically: the modules are small and pure)."""


def session_metric_ids() -> frozenset[str]:
    """Every session metric id."""
    return frozenset(_SESSION)


def session_scorer_class(metric_id: str) -> type[SessionScorerBase]:
    """The class of a session metric.

    Raises:
        KeyError: unknown session metric id (the message lists the known ones).
    """
    if metric_id not in _SESSION:
        raise KeyError(f"unknown session metric id {metric_id!r}; known: {sorted(_SESSION)}")
    return _SESSION[metric_id]


def build_session_scorer(metric_id: str, **arguments: Any) -> SessionScorerBase:
    """Build a session metric's scorer with its arguments.

    Raises:
        KeyError: unknown id. TypeError: an argument it does not take.
        ValueError: a value it rejects.
    """
    return session_scorer_class(metric_id)(**arguments)


def session_metric_card(metric_id: str) -> MetricCard:
    """A session metric's catalogue card (read off its class, like every other metric's)."""
    return card_of(session_scorer_class(metric_id), source=BUILT_IN)
