"""The sample agent's story: baseline, improved candidate, A/A control and seeded defects.

Wires the sample system under test (``eval_pipeline.sample_agent``: its builds registry, its
datasets and its suite) into ``validate_defects``: traces go to the home's trace store, scores
to its score store, the judge is the suite's (cached in the state database), cost comes from
the versioned price table. ``run_story`` is what ``eval-pipeline demo`` and the ``defects``
command call; ``validate_sample_agent`` is the ``defects`` command itself.
"""

import contextlib
import dataclasses
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.defects.evaluation import SuiteEvaluation
from eval_pipeline.defects.validate import SeededBuild, ValidationReport, validate_defects
from eval_pipeline.home import Home
from eval_pipeline.package_data import package_path
from eval_pipeline.runners.python_entry import PythonEntryPointRunner, import_module
from eval_pipeline.runners.sink import RunSink, TraceStoreSink
from eval_pipeline.traces.model import EvalContext

SAMPLE_ENTRY = "eval_pipeline.sample_agent.app:run_item"
SAMPLE_BUILDS = "eval_pipeline.sample_agent.builds"
SAMPLE_ITEMS = "eval_pipeline.sample_agent.items"
EXAMPLE_SUITE = package_path("eval_pipeline.suites", "shipped", "support-agent.yaml")
AA_SUFFIX = "-aa"


def sample_agent_builds() -> tuple[SeededBuild, SeededBuild, tuple[SeededBuild, ...], SeededBuild]:
    """(baseline, improved candidate, seeded defects, A/A control) of the sample agent."""
    module = import_module(SAMPLE_BUILDS)

    def seeded(config: Any, build: str | None = None) -> SeededBuild:
        return SeededBuild(
            build or config.name,
            {"agent_build": config.name},
            config.target_metric,
            config.description,
        )

    base = module.BASELINE
    aa = SeededBuild(
        base.name + AA_SUFFIX,
        {"agent_build": base.name},
        None,
        "A/A control: the baseline rerun with new seeds",
    )
    return (seeded(base), seeded(module.IMPROVED), tuple(seeded(d) for d in module.DEFECTS), aa)


def publish_sample_datasets(store: Any) -> list[str]:
    """Publish the sample agent's golden and adversarial sets (idempotent)."""
    refs: list[str] = import_module(SAMPLE_ITEMS).publish_datasets(store)
    return refs


def suite_items(suite: Any, store: Any, *, limit: int | None = None) -> list[DatasetItem]:
    """The items of every pinned dataset of ``suite`` (the first ``limit`` of each)."""
    items: list[DatasetItem] = []
    for ref in suite.datasets:
        items += list(store.load(ref.name, ref.version).items)[:limit]
    return items


def gate_config(suite: Any) -> Any:
    """The gate configuration of a suite (the gate package's adapter when present)."""
    try:
        adapter = importlib.import_module("eval_pipeline.gate.suite_adapter")
    except ImportError:
        adapter = None
    if adapter is not None:
        return adapter.gate_config_from_suite(suite)
    from eval_pipeline.gate.rules import Budgets, GateConfig, MetricRule, tier_policy

    return GateConfig(
        metrics=tuple(MetricRule(m.id, m.threshold, m.max_regression) for m in suite.metrics),
        budgets=Budgets(
            p95_latency_s=suite.budgets.p95_latency_s,
            cost_per_task_usd=suite.budgets.cost_per_task_usd,
        ),
        slices=tuple(suite.slices),
        tier=tier_policy(suite.risk_tier),
        runs_per_item=suite.runs_per_item,
    )


def _scorers(suite: Any) -> list[Any]:
    from eval_pipeline.judges.factory import judge_from_config, judge_from_suite
    from eval_pipeline.scoring.registry import JUDGE_METRICS, build_scorer

    judge = (
        judge_from_suite(suite) if suite.judge is not None else judge_from_config("offline-minilm")
    )
    return [
        build_scorer(m, judge=judge) if m in JUDGE_METRICS else build_scorer(m)
        for m in suite.metric_ids
    ]


def sample_evaluation(
    home: Home,
    suite: Any,
    items: Sequence[DatasetItem],
    *,
    runs_per_item: int | None = None,
    concurrency: int = 4,
    sink: RunSink | None = None,
    timeout_s: float = 60.0,
) -> SuiteEvaluation:
    """A ``SuiteEvaluation`` running the sample agent in process, storing into ``home``."""
    from eval_pipeline.scoring.store import ScoreStore
    from eval_pipeline.suites.prices import PriceTable, UnknownModelError, cost_of_run
    from eval_pipeline.traces.store.trace_store import TraceStore

    run_sink = sink if sink is not None else TraceStoreSink(TraceStore(home.store))
    prices = PriceTable.load()

    def cost(run: Any) -> float | None:
        try:
            return cost_of_run(run, prices)
        except UnknownModelError:
            return None

    return SuiteEvaluation(
        items=items,
        scorers=_scorers(suite),
        sink=run_sink,
        runner_factory=lambda build, params: PythonEntryPointRunner(
            SAMPLE_ENTRY, params=params, sink=run_sink, timeout_s=timeout_s
        ),
        runs_per_item=runs_per_item or suite.runs_per_item,
        base_context=EvalContext(suite=suite.suite, suite_version=suite.version),
        slices=suite.slices,
        cost_of_run=cost,
        score_store=ScoreStore(home.store),
        concurrency=concurrency,
    )


def load_sample_suite(home: Home, suite_path: Path | None = None) -> tuple[Any, Any]:
    """(suite, dataset store) with the sample datasets published into the home."""
    from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
    from eval_pipeline.suites.config import load_suite

    store = DatasetStore(home.ensure().datasets, read_only_roots=(shipped_datasets_dir(),))
    # Outside the project (no ``examples`` package) only the suite's own datasets exist.
    with contextlib.suppress(ModuleNotFoundError):
        publish_sample_datasets(store)
    return load_suite(Path(suite_path or EXAMPLE_SUITE), store=store), store


def validate_sample_agent(
    home: Home,
    suite_path: Path | None = None,
    *,
    items_per_dataset: int | None = None,
    runs_per_item: int | None = None,
    concurrency: int = 4,
) -> ValidationReport:
    """Seeded-defect validation of the suite's gate with the sample agent's builds."""
    from eval_pipeline.gate.engine import evaluate_gate

    suite, store = load_sample_suite(home, suite_path)
    items = suite_items(suite, store, limit=items_per_dataset)
    evaluation = sample_evaluation(
        home, suite, items, runs_per_item=runs_per_item, concurrency=concurrency
    )
    config = dataclasses.replace(gate_config(suite), runs_per_item=evaluation.runs_per_item)
    baseline, candidate, defects, aa = sample_agent_builds()

    def gate(candidate_frame: pd.DataFrame, baseline_frame: pd.DataFrame) -> Any:
        return evaluate_gate(config, candidate_frame, baseline_frame)

    return validate_defects(
        evaluation,
        gate,
        suite=suite.suite,
        baseline=baseline,
        candidate=candidate,
        defects=defects,
        aa_control=aa,
    )


@dataclass(frozen=True)
class StoryResult:
    """The story's gate reports (``reports[build]``: a ``GateReport`` against the baseline)."""

    baseline: str
    candidate: str
    reports: dict[str, Any]
    validation: ValidationReport


def run_story(
    home: Home,
    *,
    suite_path: Path | None = None,
    items_per_dataset: int | None = None,
    runs_per_item: int | None = None,
) -> StoryResult:
    """Baseline, improved candidate, A/A control and every seeded defect, gated."""
    validation = validate_sample_agent(
        home, suite_path, items_per_dataset=items_per_dataset, runs_per_item=runs_per_item
    )
    candidate = validation.candidate.build if validation.candidate else ""
    return StoryResult(validation.baseline, candidate, dict(validation.reports), validation)
