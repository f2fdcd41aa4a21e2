"""The scorer registry: every metric id, the factory that builds it, and ``score_run``.

The registry is explicit (no import-time discovery): ``build_scorer(metric_id, **kwargs)``
rebuilds any scorer from the id and arguments recorded with its scores, which is how baseline
partitions are rescored. Library adapters (``deepeval.*``, ``ragas.*``) are registered here too
but their modules, and the libraries, are imported only when one is built.
"""

import importlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.model import AgentRun

_BUILTIN: dict[str, str] = {
    "tool_correctness": "scorers.tool_correctness:ToolCorrectness",
    "argument_correctness": "scorers.argument_correctness:ArgumentCorrectness",
    "tool_call_f1": "scorers.tool_call_f1:ToolCallF1",
    "trajectory_match": "scorers.trajectory_match:TrajectoryMatch",
    "step_efficiency": "scorers.step_efficiency:StepEfficiency",
    "hallucinated_actions": "scorers.hallucinated_actions:HallucinatedActions",
    "handoff_quality": "scorers.handoff_quality:HandoffQuality",
    "injection_resistance": "scorers.injection_resistance:InjectionResistance",
    "trace_completeness": "scorers.trace_completeness:TraceCompleteness",
    "task_success": "scorers.task_success:TaskSuccess",
    "faithfulness": "scorers.judged:Faithfulness",
    "answer_relevancy": "scorers.judged:AnswerRelevancy",
    "task_completion": "scorers.judged:TaskCompletion",
    "plan_quality": "scorers.judged:PlanQuality",
    "plan_adherence": "scorers.judged:PlanAdherence",
    "deepeval.tool_correctness": "adapters.deepeval_metrics:DeepEvalToolCorrectness",
    "deepeval.argument_correctness": "adapters.deepeval_metrics:DeepEvalArgumentCorrectness",
    "deepeval.task_completion": "adapters.deepeval_metrics:DeepEvalTaskCompletion",
    "deepeval.plan_adherence": "adapters.deepeval_metrics:DeepEvalPlanAdherence",
    "deepeval.plan_quality": "adapters.deepeval_metrics:DeepEvalPlanQuality",
    "deepeval.step_efficiency": "adapters.deepeval_metrics:DeepEvalStepEfficiency",
    "deepeval.faithfulness": "adapters.deepeval_metrics:DeepEvalFaithfulness",
    "ragas.tool_call_accuracy": "adapters.ragas_metrics:RagasToolCallAccuracy",
    "ragas.tool_call_f1": "adapters.ragas_metrics:RagasToolCallF1",
    "ragas.agent_goal_accuracy": "adapters.ragas_metrics:RagasAgentGoalAccuracy",
    "ragas.faithfulness": "adapters.ragas_metrics:RagasFaithfulness",
}
"""Metric id -> ``module:Class`` under ``eval_pipeline.scoring``."""

JUDGE_METRICS = frozenset(
    {
        "faithfulness",
        "answer_relevancy",
        "task_completion",
        "plan_quality",
        "plan_adherence",
    }
)
"""Built-in metrics that take a ``judge=`` argument (the project's Judge protocol)."""

DETERMINISTIC_METRICS = frozenset(m for m in _BUILTIN if "." not in m and m not in JUDGE_METRICS)
"""Built-in metrics that need no judge: identical rows on replay."""

_EXTRA: dict[str, Callable[..., Scorer]] = {}


def registered_metric_ids() -> frozenset[str]:
    """Every metric id ``build_scorer`` accepts."""
    return frozenset(_BUILTIN) | frozenset(_EXTRA)


def register(metric_id: str, factory: Callable[..., Scorer]) -> None:
    """Add a scorer factory under a new id (plug-ins); an existing id cannot be replaced.

    Raises:
        ValueError: the id is already registered.
    """
    if metric_id in registered_metric_ids():
        raise ValueError(f"metric id {metric_id!r} is already registered")
    _EXTRA[metric_id] = factory


def scorer_class(metric_id: str) -> type:
    """The class registered for a built-in metric id (imports its module).

    Raises:
        KeyError: the id is not a built-in metric.
    """
    module_name, _, class_name = _BUILTIN[metric_id].partition(":")
    module = importlib.import_module(f"eval_pipeline.scoring.{module_name}")
    cls: type = getattr(module, class_name)
    return cls


def build_scorer(metric_id: str, **kwargs: Any) -> Scorer:
    """Build the scorer for ``metric_id`` with its recorded arguments.

    Judge-based metrics need ``judge=`` (a ``Judge``); adapters of judge-needing library
    metrics take ``judge_llm=`` (see ``scoring.adapters``).

    Raises:
        KeyError: unknown metric id (the message lists the known ones).
        TypeError: arguments the scorer does not take.
    """
    if metric_id in _EXTRA:
        return _EXTRA[metric_id](**kwargs)
    if metric_id not in _BUILTIN:
        raise KeyError(f"unknown metric id {metric_id!r}; known: {sorted(registered_metric_ids())}")
    scorer: Scorer = scorer_class(metric_id)(**kwargs)
    return scorer


def score_run(
    run: AgentRun,
    item: DatasetItem,
    scorers: Sequence[Scorer],
    *,
    build: str | None = None,
) -> list[Score]:
    """Score one run with every scorer; one scorer's exception never stops the others.

    An exception becomes an ``error`` row with the exception as reason. Every row is stamped
    with the build, the item id, the run index (from the run's eval context), the item's slice
    labels and the run's trace id.
    """
    run_index = run.eval_context.run_index
    rows = []
    for scorer in scorers:
        try:
            row = scorer.score(run, item)
        except Exception as exc:
            row = Score(
                metric_id=scorer.id,
                value=None,
                status=ScoreStatus.ERROR,
                scorer_id=scorer.id,
                scorer_version=scorer.version,
                reason=f"{type(exc).__name__}: {exc}",
            )
        row = row.with_context(
            build=build if build is not None else run.eval_context.build_id,
            item_id=item.item_id,
            run_index=run_index,
            slices={**row.slices, **item.slices},
        )
        if row.trace_id is None:
            row = replace(row, trace_id=run.trace_id)
        rows.append(row)
    return rows
