"""A build's evaluation stage: the registered build, its suite, its items and its baseline."""

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from eval_pipeline.builds import BuildRecord, BuildRegistry
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.home import Home
from eval_pipeline.suites.config import SuiteConfig, load_suite
from eval_pipeline.suites.locate import locate_suite


class BuildNotRegisteredError(LookupError):
    """The build has no registry row; the message says how to register it."""


@dataclass(frozen=True)
class SuiteItem:
    """A dataset item with the dataset it came from."""

    dataset: str
    dataset_version: str
    item: DatasetItem


@dataclass(frozen=True)
class Stage:
    """Everything one build's evaluation needs to know, resolved once."""

    home: Home
    record: BuildRecord
    suite_path: Path
    suite: SuiteConfig

    @property
    def build(self) -> str:
        """The build id."""
        return self.record.build

    @property
    def registry(self) -> BuildRegistry:
        """The build registry of the home."""
        return BuildRegistry(self.home.state_url)

    @cached_property
    def items(self) -> tuple[SuiteItem, ...]:
        """Every item of every dataset the suite pins, in suite order."""
        store = dataset_store(self.home)
        found: list[SuiteItem] = []
        seen: dict[str, str] = {}
        for ref in self.suite.datasets:
            dataset = store.load(ref.name, ref.version)
            for item in dataset.items:
                if item.item_id in seen:
                    raise ValueError(
                        f"suite {self.suite.suite}: item id {item.item_id!r} appears in both "
                        f"{seen[item.item_id]} and {ref.ref}; item ids must be unique per suite"
                    )
                seen[item.item_id] = ref.ref
                found.append(SuiteItem(ref.name, ref.version, item))
        return tuple(found)

    @property
    def baseline(self) -> str | None:
        """The baseline to compare with: the build's own, else the suite's pin (never itself)."""
        baseline = self.record.baseline or self.registry.baseline_for(self.suite.suite)
        return None if baseline == self.build else baseline


def dataset_store(home: Home) -> DatasetStore:
    """The home's dataset store, falling back to the shipped datasets (package data)."""
    return DatasetStore(home.datasets, read_only_roots=(shipped_datasets_dir(),))


def load_stage(home: Home, build: str) -> Stage:
    """Resolve a registered build's stage.

    Raises:
        BuildNotRegisteredError: the build is not in the registry.
        SuiteError: the build's suite file is invalid (names file, line and field).
    """
    record = BuildRegistry(home.state_url).get(build)
    if record is None:
        raise BuildNotRegisteredError(
            f"build {build!r} is not registered: run `eval-pipeline builds register {build} "
            "--suite SUITE` first"
        )
    path = locate_suite(record.suite)
    return Stage(home=home, record=record, suite_path=path, suite=load_suite(path))
