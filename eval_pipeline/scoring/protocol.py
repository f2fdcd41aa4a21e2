"""The Scorer interface (docs/DESIGN.md section 7).

A scorer is stateless: ``score(run, item) -> Score``. It declares what it requires from the
run and the item so that a missing input becomes ``unscored`` instead of a crash, and so that
completeness checks can be derived from the declared requirements. It declares whether it needs
a judge (the registry passes one only then) and reports its construction arguments, which score
rows record so the registry can rebuild the exact scorer. Deterministic and judge-based
scorers, and the DeepEval/RAGAS adapters, all implement this one protocol.
"""

from typing import Any, Protocol, runtime_checkable

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.model import AgentRun


class Direction:
    """Whether larger values are better (all metrics here are in [0, 1])."""

    HIGHER_IS_BETTER = "higher_is_better"
    LOWER_IS_BETTER = "lower_is_better"


class Layer:
    """The part of an agent run a metric judges (the reference's "evaluate per layer")."""

    RETRIEVAL = "retrieval"
    PLAN = "plan"
    TOOL_USE = "tool_use"
    MULTI_AGENT = "multi_agent"
    FINAL_ANSWER = "final_answer"
    TASK = "task"
    SAFETY = "safety"
    TRACE = "trace"
    SESSION = "session"
    """A whole conversation (``scoring.sessions``: scored per session, not per run)."""

    ALL = (RETRIEVAL, PLAN, TOOL_USE, MULTI_AGENT, FINAL_ANSWER, TASK, SAFETY, TRACE, SESSION)


@runtime_checkable
class Scorer(Protocol):
    """One metric over one agent run and its dataset item."""

    @property
    def id(self) -> str:
        """Metric id, snake_case (e.g. ``tool_correctness``)."""
        ...

    @property
    def version(self) -> int:
        """Bumped when the scorer's semantics change (``tool_correctness@1``).

        A change that turns some ``unscored`` rows into ``not_applicable`` ones changes no
        value and no mean, so it needs no bump; one that changes a value does.
        """
        ...

    @property
    def direction(self) -> str:
        """A ``Direction`` value."""
        ...

    @property
    def requires_run(self) -> frozenset[str]:
        """``AgentRun`` fields the scorer reads (e.g. ``{"tool_calls", "final_answer"}``)."""
        ...

    @property
    def requires_item(self) -> frozenset[str]:
        """``DatasetItem`` fields the scorer reads (e.g. ``{"expected_tool_calls"}``)."""
        ...

    @property
    def needs_judge(self) -> bool:
        """True when the scorer is built with ``judge=`` (a ``Judge``) and consults it."""
        ...

    @property
    def arguments(self) -> dict[str, Any]:
        """Construction arguments that change behaviour, JSON-safe (never the judge)."""
        ...

    def score(self, run: AgentRun, item: DatasetItem) -> Score:
        """Score one run against its item; never raises for missing inputs (unscored)."""
        ...
