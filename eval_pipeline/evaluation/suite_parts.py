"""What a suite resolves to: its items, its judge and its scorers, one function each.

Every path that evaluates (the CLI's ``run``, ``score`` and ``gate``, the ``defects`` check, the
demo, the Dagster assets, the sensor and the schedule) calls these through ``Stage``, so the
same suite gives the same items, the same judge and the same scorers wherever it is run. The
fourth part, the gate configuration, is in ``evaluation.gate_config``.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.store import DatasetStore
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.registry import build_scorer, scorer_needs_judge
from eval_pipeline.scoring.sessions.base import SessionScorerBase
from eval_pipeline.scoring.sessions.registry import build_session_scorer, session_metric_ids
from eval_pipeline.suites.config import SuiteConfig


class SuiteResolutionError(ValueError):
    """A suite cannot be resolved (a dataset, a judge or a scorer); the message names the suite."""


@dataclass(frozen=True)
class SuiteItem:
    """A dataset item with the dataset version it came from."""

    dataset: str
    dataset_version: str
    item: DatasetItem


def suite_items(
    suite: SuiteConfig, store: DatasetStore, *, limit: int | None = None
) -> tuple[SuiteItem, ...]:
    """Every item of every dataset the suite pins, in suite order.

    Items without tool schemas of their own inherit their dataset's (argument checking is
    schema-aware). ``limit`` keeps the first N items of each dataset (quick checks).

    Raises:
        SuiteResolutionError: the suite pins no dataset (a rules-only suite gates score files
            but has nothing to run or score), a pinned dataset is not published, or an item id
            appears twice.
    """
    if not suite.datasets:
        raise SuiteResolutionError(
            f"suite {suite.suite} pins no datasets: it can gate score files "
            "(gate --candidate-scores) but not run or score a build; add datasets: to it"
        )
    found: list[SuiteItem] = []
    seen: dict[str, str] = {}
    for ref in suite.datasets:
        try:
            dataset = store.load(ref.name, ref.version)
        except LookupError as exc:
            raise SuiteResolutionError(f"suite {suite.suite}: dataset {ref.ref}: {exc}") from exc
        for item in list(dataset.items)[:limit]:
            if item.item_id in seen:
                raise SuiteResolutionError(
                    f"suite {suite.suite}: item id {item.item_id!r} appears in both "
                    f"{seen[item.item_id]} and {ref.ref}; item ids must be unique per suite"
                )
            seen[item.item_id] = ref.ref
            if not item.tool_schemas and dataset.tool_schemas:
                item = replace(item, tool_schemas=dataset.tool_schemas)
            found.append(SuiteItem(ref.name, ref.version, item))
    return tuple(found)


def suite_judge(suite: SuiteConfig, *, state_url: str) -> Judge | None:
    """The judge the suite's ``judge:`` block names (cached in ``state_url``), or None.

    With the alignment adopted for the suite on that judge (``judges align``), if any.

    Raises:
        SuiteResolutionError: the block names a model with no endpoint configured.
    """
    from eval_pipeline.judges.aligned_judge import aligned
    from eval_pipeline.judges.factory import JudgeConfigError, judge_from_config
    from eval_pipeline.judges.limits import JudgeLimits

    if suite.judge is None:
        return None
    block = suite.judge
    limits = JudgeLimits(block.max_concurrency, block.requests_per_minute, block.tokens_per_minute)
    try:
        judge = judge_from_config(
            block.model,
            block.rubric_version,
            base_url=block.base_url,
            state_url=state_url,
            limits=limits,
        )
    except JudgeConfigError as exc:
        raise SuiteResolutionError(f"suite {suite.suite}: {exc}") from exc
    return aligned(judge, suite.suite, state_url)


def judged_metrics(suite: SuiteConfig) -> tuple[str, ...]:
    """The suite's metrics whose scorer declares that it needs a judge."""
    return tuple(
        m for m in suite.metric_ids if m not in session_metric_ids() and scorer_needs_judge(m)
    )


def suite_scorers(suite: SuiteConfig, judge: Judge | None) -> list[Scorer]:
    """One scorer per per-run suite metric, with its ``args`` (and the judge, if it needs one).

    Session metrics are left out: ``suite_session_scorers`` builds them.

    Raises:
        SuiteResolutionError: a metric needs a judge and the suite names none, or its
            arguments are not the scorer's.
    """
    needing = judged_metrics(suite)
    if needing and judge is None:
        raise SuiteResolutionError(
            f"suite {suite.suite}: {', '.join(needing)} need a judge, and the suite has no "
            "judge: block (add judge: {model: offline-minilm, rubric_version: ..., "
            "calibration_set: ...})"
        )
    scorers = []
    for metric in suite.metrics:
        if metric.id in session_metric_ids():
            continue  # scored per session: suite_session_scorers
        try:
            scorers.append(build_scorer(metric.id, judge=judge, **metric.args))
        except (TypeError, ValueError, KeyError) as exc:
            raise SuiteResolutionError(f"suite {suite.suite}: metric {metric.id}: {exc}") from exc
    return scorers


def suite_session_scorers(suite: SuiteConfig) -> list[SessionScorerBase]:
    """One session scorer per session metric the suite lists, with the metric's ``args``.

    Raises:
        SuiteResolutionError: the arguments are not the scorer's.
    """
    scorers = []
    for metric in suite.metrics:
        if metric.id not in session_metric_ids():
            continue
        try:
            scorers.append(build_session_scorer(metric.id, **metric.args))
        except (TypeError, ValueError, KeyError) as exc:
            raise SuiteResolutionError(f"suite {suite.suite}: metric {metric.id}: {exc}") from exc
    return scorers


def plain_items(items: Sequence[SuiteItem]) -> list[DatasetItem]:
    """The dataset items of ``items``, in order."""
    return [entry.item for entry in items]
