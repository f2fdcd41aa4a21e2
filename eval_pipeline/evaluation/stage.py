"""A build's evaluation stage: the build, its suite, its items, judge, scorers and baseline.

``open_stage`` is the one way in: the CLI, the defects check, the demo and the Dagster assets
all resolve a build through it, and everything the stages need (items, judge, scorers, gate
configuration) comes from the resolvers in ``suite_parts`` and ``gate_config``. A registered
build brings its suite, runner and baseline from the registry; an unregistered one (``score
--suite S --build B`` on ingested traces) needs its suite named.
"""

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.evaluation.suite_parts import (
    SuiteItem,
    SuiteResolutionError,
    plain_items,
    suite_items,
    suite_judge,
    suite_scorers,
    suite_session_scorers,
)
from eval_pipeline.home import Home
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.scoring.protocol import Scorer
from eval_pipeline.scoring.sessions.base import SessionScorerBase
from eval_pipeline.suites.config import SuiteConfig, load_suite
from eval_pipeline.suites.locate import locate_suite
from eval_pipeline.traces.redact.policy import (
    NAMED_POLICIES,
    PolicyError,
    RedactionPolicy,
    load_policy,
)

__all__ = ["BuildNotRegisteredError", "Scope", "Stage", "SuiteItem", "load_stage", "open_stage"]


class BuildNotRegisteredError(LookupError):
    """The build has no registry row; the message says how to register it."""


@dataclass(frozen=True)
class Scope:
    """How much of the suite to evaluate: all of it unless a quick check asks for less."""

    items_per_dataset: int | None = None
    runs_per_item: int | None = None


@dataclass(frozen=True)
class Stage:
    """Everything one build's evaluation needs to know, resolved once."""

    home: Home
    build: str
    suite_path: Path
    suite: SuiteConfig
    runner: str | None = None
    baseline_override: str | None = None
    scope: Scope = field(default_factory=Scope)

    @property
    def registry(self) -> BuildRegistry:
        """The build registry of the home."""
        return BuildRegistry(self.home.state_url)

    @property
    def runs_per_item(self) -> int:
        """Runs per item: the suite's, unless the scope overrides it."""
        return self.scope.runs_per_item or self.suite.runs_per_item

    @cached_property
    def items(self) -> tuple[SuiteItem, ...]:
        """Every item of every dataset the suite pins, in suite order (see ``suite_items``)."""
        return suite_items(self.suite, dataset_store(self.home), limit=self.scope.items_per_dataset)

    @property
    def dataset_items(self) -> list[DatasetItem]:
        """The items as plain ``DatasetItem`` objects."""
        return plain_items(self.items)

    @cached_property
    def redaction_policy(self) -> RedactionPolicy:
        """The policy the build's runner spans are redacted with (the suite's ``redaction_policy``).

        A named policy (``default``, ``keep-tools``) or a file, relative to the suite file.

        Raises:
            SuiteResolutionError: the policy file cannot be read or is invalid.
        """
        name = self.suite.redaction_policy
        where: str | Path = name if name in NAMED_POLICIES else self.suite_path.parent / name
        try:
            return load_policy(where)
        except PolicyError as exc:
            raise SuiteResolutionError(
                f"suite {self.suite.suite}: redaction_policy: {exc}"
            ) from exc

    @cached_property
    def judge(self) -> Judge | None:
        """The judge the suite names (cached in the home's state database), or None."""
        return suite_judge(self.suite, state_url=self.home.state_url)

    @cached_property
    def scorers(self) -> tuple[Scorer, ...]:
        """One scorer per suite metric, with its arguments and the suite's judge."""
        return tuple(suite_scorers(self.suite, self.judge))

    @cached_property
    def session_scorers(self) -> tuple[SessionScorerBase, ...]:
        """One session scorer per session metric of the suite (scored per conversation)."""
        return tuple(suite_session_scorers(self.suite))

    @property
    def baseline(self) -> str | None:
        """The baseline to compare with: the override, the build's own, else the suite's pin.

        Never the build itself.
        """
        record = self.registry.get(self.build)
        baseline = (
            self.baseline_override
            or (record.baseline if record is not None else None)
            or self.registry.baseline_for(self.suite.suite)
        )
        return None if baseline == self.build else baseline


def dataset_store(home: Home) -> DatasetStore:
    """The home's dataset store, falling back to the shipped datasets (package data)."""
    return DatasetStore(home.datasets, read_only_roots=(shipped_datasets_dir(),))


def open_stage(
    home: Home,
    build: str,
    suite_ref: str | Path | None = None,
    *,
    runner: str | None = None,
    baseline: str | None = None,
    scope: Scope | None = None,
) -> Stage:
    """Resolve a build's stage from the registry and/or a named suite.

    Args:
        home: The eval-pipeline home.
        build: The build id.
        suite_ref: A suite name or YAML path; needed when the build is not registered, and
            must name the registered suite when it is.
        runner: A runner spec overriding the registered one.
        baseline: A baseline build overriding the registered one and the suite's pin.
        scope: Items per dataset and runs per item (the whole suite when None).

    Raises:
        BuildNotRegisteredError: the build is not registered and no suite is named.
        SuiteResolutionError: the named suite is not the build's registered suite.
        SuiteNotFoundError, SuiteError: the suite cannot be found or is invalid.
    """
    record = BuildRegistry(home.state_url).get(build)
    if record is None and suite_ref is None:
        raise BuildNotRegisteredError(
            f"build {build!r} is not registered: run `eval-pipeline builds register {build} "
            "--suite SUITE` first (or name the suite with --suite)"
        )
    reference = str(suite_ref) if suite_ref is not None else str(record.suite if record else "")
    path = locate_suite(reference)
    suite = load_suite(path)
    if record is not None and suite_ref is not None:
        registered = load_suite(locate_suite(record.suite))
        if registered.suite != suite.suite:
            raise SuiteResolutionError(
                f"build {build} is registered on suite {registered.suite}, not {suite.suite}"
            )
    return Stage(
        home=home,
        build=build,
        suite_path=path,
        suite=suite,
        runner=runner or (record.runner if record is not None else None),
        baseline_override=baseline,
        scope=scope or Scope(),
    )


def load_stage(home: Home, build: str) -> Stage:
    """The stage of a registered build (what the Dagster assets use)."""
    return open_stage(home, build)
