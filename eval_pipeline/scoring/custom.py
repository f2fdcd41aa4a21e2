"""Custom metrics a suite declares: a Python scorer by entry point, or a judged rubric.

A suite names them beside the built-in metrics (``suites.custom_metrics`` reads the
declarations); loading the suite defines each here (``define``), so the registry builds,
describes and rebuilds them like the built-in ones for the rest of the process:

- ``scorer: module:Class``: a class implementing the Scorer protocol (subclassing
  ``ScorerBase`` is the easy way), found in the suite's folder first (``module.py`` or a
  package there, imported with that folder on the path), else among installed modules. Its id,
  version, direction and the fields it reads are read off the class (``catalogue.card_of``); its
  id must be the metric's. Its rows carry the entry point as ``scorer_id`` and its version as
  ``scorer_version``, so a rescore finds it from a row (``registry.rebuild_scorer``).
- ``rubric: FILE``: a judged metric (``scoring.rubric_metric``); its rows carry
  ``rubric:<id>@<version>+<digest>`` as ``scorer_id``.

An id names one metric per process: the same file read again (an edit) replaces its
definition, and the same content from another folder is the same metric; two different
definitions of one id are refused. Every problem is a ``CustomMetricError`` naming the entry
point or file; the suite loader adds the suite file, line and metric.
"""

import hashlib
import importlib
import importlib.util
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.rubrics import Rubric
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.catalogue import MetricCard, ScorerClassError, card_of
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.model import AgentRun

_ENTRY_POINT = re.compile(r"^(?P<module>[A-Za-z_]\w*(\.[A-Za-z_]\w*)*):(?P<name>[A-Za-z_]\w*)$")


class CustomMetricError(ValueError):
    """A custom metric cannot be defined; the message names the entry point or file at fault."""


@dataclass(frozen=True)
class CustomDefinition:
    """One custom metric: its scorer class, where it comes from, and its catalogue card."""

    metric_id: str
    scorer_id: str
    cls: type
    source: str
    digest: str
    card: MetricCard


_DEFINED: dict[str, CustomDefinition] = {}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _module_file(folder: Path, module: str) -> Path | None:
    base = folder.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _import_file(module: str, path: Path, folder: Path) -> ModuleType:
    # Keyed by file and content: an edited file is imported afresh, an unchanged one once.
    name = f"_eval_pipeline_custom_{_digest(str(path).encode() + path.read_bytes())}"
    if name in sys.modules:
        return sys.modules[name]
    locations = [str(path.parent)] if path.name == "__init__.py" else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        raise CustomMetricError(f"cannot import {module} from {path}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    sys.path.insert(0, str(folder))  # so the module can import its neighbours
    try:
        spec.loader.exec_module(loaded)
    except Exception as exc:  # the user's module failed: say so, whatever it raised
        del sys.modules[name]
        raise CustomMetricError(
            f"importing {module} from {path} failed: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        sys.path.remove(str(folder))
    return loaded


def is_entry_point(ref: str) -> bool:
    """Whether ``ref`` has the form ``module:Class``."""
    return _ENTRY_POINT.match(ref) is not None


def load_entry_point(ref: str, folder: Path | None) -> tuple[type, str]:
    """The class ``module:Class`` names, and the file it was defined in.

    Raises:
        CustomMetricError: a malformed reference, a module that is neither in ``folder`` nor
            installed, one whose import fails, or no class of that name in it.
    """
    match = _ENTRY_POINT.match(ref)
    if match is None:
        raise CustomMetricError(f"entry point {ref!r} is not module:Class")
    module, name = match.group("module"), match.group("name")
    path = _module_file(folder, module) if folder is not None else None
    if path is not None and folder is not None:
        loaded = _import_file(module, path, folder)
    else:
        try:
            loaded = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            where = f"in {folder} or " if folder is not None else ""
            raise CustomMetricError(
                f"module {module!r} of {ref} not found {where}among installed modules ({exc})"
            ) from exc
        except Exception as exc:  # the user's module failed: say so, whatever it raised
            raise CustomMetricError(
                f"importing {module} failed: {type(exc).__name__}: {exc}"
            ) from exc
    cls = getattr(loaded, name, None)
    if not isinstance(cls, type):
        what = "no class" if cls is None else f"{type(cls).__name__}, not a class, as"
        raise CustomMetricError(f"module {module} ({loaded.__file__}) has {what} {name!r}")
    return cls, str(getattr(sys.modules.get(cls.__module__), "__file__", None) or module)


def _scorer_card(metric_id: str, cls: type, ref: str, source: str) -> MetricCard:
    try:
        card = card_of(cls, source=f"python {ref} ({source})", scorer_id=ref)
    except ScorerClassError as exc:
        raise CustomMetricError(f"{ref} does not implement the Scorer protocol: {exc}") from exc
    missing = [n for n in ("score", "arguments") if not hasattr(cls, n)]
    if missing or not callable(getattr(cls, "score", None)):
        raise CustomMetricError(
            f"{ref} does not implement the Scorer protocol: it lacks {missing or ['score()']}"
        )
    if issubclass(cls, ScorerBase) and cls.verdict is ScorerBase.verdict:
        raise CustomMetricError(f"{ref} subclasses ScorerBase but does not implement verdict()")
    if card.id != metric_id:
        raise CustomMetricError(f"{ref} declares metric id {card.id!r}, not {metric_id!r}")
    return card


def python_metric(metric_id: str, ref: str, folder: Path | None) -> CustomDefinition:
    """The definition of a Python scorer metric (see the module docstring).

    Raises:
        CustomMetricError: the class cannot be loaded or does not implement the protocol.
    """
    cls, source = load_entry_point(ref, folder)
    path = Path(source)
    digest = _digest(path.read_bytes()) if path.is_file() else ""
    card = _scorer_card(metric_id, cls, ref, source)
    return CustomDefinition(metric_id, ref, cls, source, digest, card)


def rubric_metric(metric_id: str, rubric: Rubric) -> CustomDefinition:
    """The definition of a judged metric made from a custom rubric."""
    from eval_pipeline.scoring.rubric_metric import rubric_scorer_class

    cls = rubric_scorer_class(metric_id, rubric)
    scorer_id = f"rubric:{rubric.ref}"
    card = card_of(cls, source=f"rubric {rubric.source}", scorer_id=scorer_id)
    return CustomDefinition(metric_id, scorer_id, cls, rubric.source, rubric.digest, card)


def define(definition: CustomDefinition, *, reserved: frozenset[str] = frozenset()) -> None:
    """Make ``definition`` known to the registry for the rest of the process.

    Raises:
        CustomMetricError: the id is ``reserved`` (built in), or defined differently already.
    """
    metric_id = definition.metric_id
    if metric_id in reserved:
        raise CustomMetricError(
            f"metric id {metric_id!r} is built in: a custom metric needs its own"
        )
    known = _DEFINED.get(metric_id)
    if known is not None and (
        known.scorer_id.split("@")[0] != definition.scorer_id.split("@")[0]
        or (known.source != definition.source and known.digest != definition.digest)
    ):
        raise CustomMetricError(
            f"metric id {metric_id!r} is already defined by {known.scorer_id} ({known.source}): "
            "one id names one metric"
        )
    _DEFINED[metric_id] = definition


def defined(metric_id: str) -> CustomDefinition | None:
    """The custom definition of ``metric_id`` in this process, or None."""
    return _DEFINED.get(metric_id)


def defined_ids() -> frozenset[str]:
    """Every custom metric id defined in this process."""
    return frozenset(_DEFINED)


class CustomScorer:
    """A custom metric's scorer as the registry builds it: its rows name where it came from.

    Implements the Scorer protocol over the user's scorer: the identity is the card's (read off
    the class), and every row is checked (a ``Score`` of this metric) and stamped with the
    definition's ``scorer_id`` and the class's version.
    """

    def __init__(self, inner: Any, definition: CustomDefinition) -> None:
        self.inner = inner
        self.definition = definition

    @property
    def id(self) -> str:
        """The metric id."""
        return self.definition.card.id

    @property
    def version(self) -> int:
        """The class's version."""
        return self.definition.card.version

    @property
    def direction(self) -> str:
        """A ``Direction`` value."""
        return self.definition.card.direction

    @property
    def needs_judge(self) -> bool:
        """Whether it is built with the suite's judge."""
        return self.definition.card.judged

    @property
    def requires_run(self) -> frozenset[str]:
        """``AgentRun`` fields read."""
        return frozenset(self.definition.card.run_fields)

    @property
    def requires_item(self) -> frozenset[str]:
        """``DatasetItem`` fields read."""
        return frozenset(self.definition.card.item_fields)

    @property
    def arguments(self) -> dict[str, Any]:
        """The user's scorer's construction arguments."""
        return dict(self.inner.arguments)

    def score(self, run: AgentRun, item: DatasetItem) -> Score:
        """The user's scorer's row, stamped (raises for a row that is not this metric's)."""
        if isinstance(self.inner, ScorerBase):
            return self.own(self.inner.verdict(run, item).row(self.id, self.version, run.trace_id))
        return self.own(self.inner.score(run, item))

    def own(self, row: object) -> Score:
        """``row`` with this definition's scorer id and version.

        Raises:
            TypeError: not a ``Score``.
            ValueError: a score of another metric.
        """
        ref = self.definition.scorer_id
        if not isinstance(row, Score):
            raise TypeError(f"{ref} returned {type(row).__name__}, not a Score")
        if row.metric_id != self.id:
            raise ValueError(f"{ref} returned a score of {row.metric_id!r}, not {self.id!r}")
        return replace(row, scorer_id=ref, scorer_version=self.version)


class BatchCustomScorer(CustomScorer):
    """A ``CustomScorer`` over a scorer that scores many runs at once (a rubric metric)."""

    def score_many(self, pairs: Sequence[tuple[AgentRun, DatasetItem]]) -> list[Score]:
        """The user's scorer's rows for ``pairs``, stamped."""
        return [self.own(row) for row in self.inner.score_many(pairs)]


def wrap(definition: CustomDefinition, scorer: Any) -> CustomScorer:
    """``scorer`` (built from ``definition.cls``) as the registry hands it out."""
    if callable(getattr(scorer, "score_many", None)):
        return BatchCustomScorer(scorer, definition)
    return CustomScorer(scorer, definition)
