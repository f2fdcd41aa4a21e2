"""The scorer registry: every metric id, the factory that builds it, and ``score_run``.

The registry is explicit (no import-time discovery) and keeps nothing but id -> class: what a
scorer needs is declared on its class (``needs_judge``, ``run_fields``, ``item_fields``).
``build_scorer(metric_id, judge=..., **arguments)`` builds a scorer, passing the judge only to
one that declares it; ``score_run`` records each scorer's ``arguments`` on its rows, and
``rebuild_scorer(row)`` rebuilds the exact scorer from them, which is how baseline partitions
are rescored. Library adapters (``deepeval.*``, ``ragas.*``) are registered here too; their
modules import the libraries only when a metric runs.

A suite's custom metrics (``scoring.custom``: a Python scorer by entry point, a judged rubric)
are defined here when the suite is loaded, and from then on are built, described
(``metric_card``) and rebuilt like the built-in ones; a row of a Python scorer whose suite was
not loaded names its entry point, which ``rebuild_scorer`` imports from the installed modules.
"""

import importlib
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.scoring import custom
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.catalogue import BUILT_IN, MetricCard, card_of
from eval_pipeline.scoring.error_reason import error_reason
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.verdict import Verdict
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

_EXTRA: dict[str, type[ScorerBase]] = {}

StoredScorer = tuple[str, int, Mapping[str, Any]]
"""(metric id, scorer version, scorer arguments), as recorded on a score row."""


def registered_metric_ids() -> frozenset[str]:
    """Every metric id ``build_scorer`` accepts (custom ones defined in this process too)."""
    return frozenset(_BUILTIN) | frozenset(_EXTRA) | custom.defined_ids()


def built_in_metric_ids() -> frozenset[str]:
    """The metric ids that come with the package (and plug-ins registered with ``register``)."""
    return frozenset(_BUILTIN) | frozenset(_EXTRA)


def define_custom(definition: custom.CustomDefinition) -> None:
    """Define a suite's custom metric for this process (``scoring.custom.define``).

    Raises:
        custom.CustomMetricError: a built-in id, or one defined differently already.
    """
    custom.define(definition, reserved=built_in_metric_ids())


def register(metric_id: str, cls: type[ScorerBase]) -> None:
    """Add a scorer class under a new id (plug-ins); an existing id cannot be replaced.

    Raises:
        ValueError: the id is already registered.
    """
    if metric_id in registered_metric_ids():
        raise ValueError(f"metric id {metric_id!r} is already registered")
    _EXTRA[metric_id] = cls


def scorer_class(metric_id: str) -> type:
    """The class registered for a metric id (imports a built-in's module).

    A built-in's is a ``ScorerBase``; a custom Python scorer's may be any class implementing
    the protocol (read its identity with ``metric_card``).

    Raises:
        KeyError: unknown metric id (the message lists the known ones).
    """
    if metric_id in _EXTRA:
        return _EXTRA[metric_id]
    definition = custom.defined(metric_id)
    if definition is not None:
        return definition.cls
    if metric_id not in _BUILTIN:
        raise KeyError(f"unknown metric id {metric_id!r}; known: {sorted(registered_metric_ids())}")
    module_name, _, class_name = _BUILTIN[metric_id].partition(":")
    module = importlib.import_module(f"eval_pipeline.scoring.{module_name}")
    cls: type[ScorerBase] = getattr(module, class_name)
    return cls


def metric_card(metric_id: str) -> MetricCard:
    """What the metric reads, its range, direction, version, and whether it is judged.

    Raises:
        KeyError: unknown metric id.
    """
    definition = custom.defined(metric_id)
    if definition is not None and metric_id not in _EXTRA:
        return definition.card
    cls = scorer_class(metric_id)
    library = getattr(cls, "library", "")
    return card_of(cls, source=f"library {library}" if library else BUILT_IN)


def scorer_needs_judge(metric_id: str) -> bool:
    """Whether the metric's scorer declares ``needs_judge`` (is built with ``judge=``).

    Raises:
        KeyError: unknown metric id.
    """
    return metric_card(metric_id).judged


def select_metric_ids(*, needs_judge: bool, library: bool = False) -> tuple[str, ...]:
    """Registered ids (sorted) selected by what their scorer classes declare.

    ``needs_judge`` as given, and running an external library (DeepEval, RAGAS) or not as
    ``library`` says: ``select_metric_ids(needs_judge=False)`` is the project's own
    deterministic scorers.
    """
    cards = (metric_card(m) for m in sorted(registered_metric_ids()))
    return tuple(c.id for c in cards if c.judged is needs_judge and bool(c.library) is library)


def _check_arguments(metric_id: str, cls: type, arguments: Mapping[str, Any]) -> None:
    parameters = inspect.signature(cls).parameters.values()
    takes = sorted(
        p.name
        for p in parameters
        if p.name != "judge" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    )
    unknown = sorted(set(arguments) - set(takes))
    if unknown and not any(p.kind is p.VAR_KEYWORD for p in parameters):
        raise TypeError(
            f"metric {metric_id!r} takes no argument {', '.join(map(repr, unknown))}; "
            f"it takes: {', '.join(takes) or 'no arguments'}"
        )


def build_scorer(metric_id: str, *, judge: Judge | None = None, **arguments: Any) -> Scorer:
    """Build the scorer for ``metric_id`` with its arguments (as recorded on its score rows).

    ``judge`` is passed only to a scorer that declares ``needs_judge``; any other ignores it,
    so callers may hand the suite's judge to every metric.

    Raises:
        KeyError: unknown metric id (the message lists the known ones).
        ValueError: a judged metric without a judge, or a value the scorer rejects.
        TypeError: arguments the scorer does not take (the message lists those it takes).
    """
    cls = scorer_class(metric_id)
    _check_arguments(metric_id, cls, arguments)
    if metric_card(metric_id).judged:
        if judge is None:
            raise ValueError(
                f"metric {metric_id!r} is judge-based: build it with judge= (the suite's judge)"
            )
        arguments = {"judge": judge, **arguments}
    definition = custom.defined(metric_id) if metric_id not in _EXTRA else None
    try:
        scorer = cls(**arguments)
        return scorer if definition is None else custom.wrap(definition, scorer)
    except ValueError as exc:
        raise ValueError(f"metric {metric_id!r}: {exc}") from exc
    except TypeError as exc:
        raise TypeError(f"metric {metric_id!r}: {exc}") from exc


def rebuild_scorer(row: Score | StoredScorer, judge: Judge | None = None) -> Scorer:
    """The exact scorer that wrote ``row`` (a stored score, or its id, version and arguments).

    A custom metric is found by its definition in this process (its suite was loaded), else a
    stored row's ``scorer_id`` names the entry point of its Python scorer, imported from the
    installed modules.

    Raises:
        KeyError: the row's metric id is not registered.
        ValueError: the row was written by another version of the scorer than the code's (its
            semantics differ, so it cannot be rebuilt), by another custom scorer or rubric than
            the one defined now, or a judged metric without a judge.
        custom.CustomMetricError: the entry point the row names cannot be imported.
    """
    arguments: Mapping[str, Any]
    scorer_id: str | None = None
    if isinstance(row, Score):
        metric_id, version, arguments = row.metric_id, row.scorer_version, row.scorer_args
        scorer_id = row.scorer_id
    else:
        metric_id, version, arguments = row
    unknown = metric_id not in registered_metric_ids()
    if unknown and scorer_id is not None and custom.is_entry_point(scorer_id):
        define_custom(custom.python_metric(metric_id, scorer_id, None))
    definition = custom.defined(metric_id)
    if definition is not None and scorer_id not in (None, definition.scorer_id):
        raise ValueError(
            f"cannot rebuild {metric_id!r}: the row was scored by {scorer_id}, the metric is "
            f"now defined by {definition.scorer_id}; rescore with the current definition instead"
        )
    current = metric_card(metric_id).version
    if version != current:
        raise ValueError(
            f"cannot rebuild {metric_id!r}: the row was scored by version {version}, the "
            f"code's scorer is version {current}; rescore with the current scorer instead"
        )
    return build_scorer(metric_id, judge=judge, **dict(arguments))


def score_run(
    run: AgentRun,
    item: DatasetItem,
    scorers: Sequence[Scorer],
    *,
    build: str | None = None,
    run_index: int | None = None,
) -> list[Score]:
    """Score one run with every scorer; one scorer's exception never stops the others.

    An exception becomes an ``error`` row with the exception as reason. Every row carries the
    build, the item id, the run index (``run_index``, else the run's eval context's), the
    item's slice labels (over the row's own), the run's trace id (unless the row names one)
    and the scorer's arguments. A built-in scorer's row is built once, from its verdict;
    another scorer's row is copied with that identity.
    """
    if run_index is None:
        run_index = run.eval_context.run_index
    build_id = build if build is not None else run.eval_context.build_id
    item_id, item_slices, trace_id = item.item_id, item.slices, run.trace_id
    rows = []
    for scorer in scorers:
        verdict: Verdict | Score
        try:
            verdict = (
                scorer.verdict(run, item)
                if isinstance(scorer, ScorerBase)
                else scorer.score(run, item)
            )
        except Exception as exc:
            verdict = Verdict(ScoreStatus.ERROR, None, error_reason(exc), (), {}, None, None)
        if isinstance(verdict, Verdict):
            row = verdict.row(
                scorer.id,
                scorer.version,
                trace_id,
                build=build_id,
                item_id=item_id,
                run_index=run_index,
                slices=item_slices,
                scorer_args=scorer.arguments,
            )
        else:
            row = replace(
                verdict,
                build=build_id,
                item_id=item_id,
                run_index=run_index,
                slices={**verdict.slices, **item_slices},
                trace_id=trace_id if verdict.trace_id is None else verdict.trace_id,
                scorer_args=dict(scorer.arguments),
            )
        rows.append(row)
    return rows
