"""The dataset import: source files -> items -> a dataset version ready to publish.

Two kinds of source: a dataset a person wrote in the published item format (``jsonl``,
``csv``: ``user_files``, schema ``datasets/item.schema.json``), and a benchmark's own files
(``tau2``, ``taubench``, ``bfcl``, ``agentdojo``), read with that benchmark's reader
(``importers.benchmarks``: the same reader the trace import uses for its results files).
``import_dataset`` wraps the items as a version and says where each item came from
(``file:line`` for line-based files, else ``files: item N``), so validation before publishing
(``datasets.publishing``) can point at it. ``curation`` rebuilds the shipped datasets from the
repository's fixtures.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from eval_pipeline.datasets.artefact import Dataset, DatasetKind, kind_of_name
from eval_pipeline.importers.datasets.user_files import USER_FORMATS, read_user_items
from eval_pipeline.importers.imported import ImportedItems
from eval_pipeline.importers.source_files import SourceError

Importer = Callable[[Sequence[Path]], ImportedItems]

DEFAULT_KINDS: dict[str, DatasetKind] = {
    "jsonl": "golden",
    "csv": "golden",
    "tau2": "benchmark",
    "tau2-multi-turn": "benchmark",
    "taubench": "benchmark",
    "bfcl": "benchmark",
    "agentdojo": "adversarial",
}
FORMATS: tuple[str, ...] = tuple(DEFAULT_KINDS)
MULTI_TURN = {"tau2": "tau2-multi-turn"}
"""Formats with a multi-turn import (``datasets import --multi-turn``), and its format."""
BENCHMARK_FORMATS: tuple[str, ...] = tuple(f for f in FORMATS if f not in USER_FORMATS)


@dataclass(frozen=True)
class DatasetImport:
    """A version ready to publish, and where each of its items came from."""

    dataset: Dataset
    locations: tuple[str, ...]


def importer(fmt: str) -> Importer:
    """The benchmark import function for ``fmt`` (one of ``BENCHMARK_FORMATS``)."""
    if fmt == "tau2":
        from eval_pipeline.importers.benchmarks import tau2

        return tau2.import_tasks
    if fmt == "tau2-multi-turn":
        from eval_pipeline.importers.benchmarks.tau2_conversation import import_multi_turn

        return import_multi_turn
    if fmt == "taubench":
        from eval_pipeline.importers.benchmarks import taubench

        return taubench.import_tasks
    if fmt == "bfcl":
        from eval_pipeline.importers.benchmarks.bfcl import import_bfcl

        return import_bfcl
    if fmt == "agentdojo":
        from eval_pipeline.importers.benchmarks.agentdojo import import_agentdojo

        return import_agentdojo
    raise SourceError(f"--format {fmt!r}: expected one of {', '.join(FORMATS)}")


def read_sources(fmt: str, paths: Sequence[Path]) -> tuple[ImportedItems, tuple[str, ...]]:
    """The items of ``paths`` read as ``fmt``, and where each came from."""
    if not paths:
        raise SourceError("no source paths given")
    if fmt in USER_FORMATS:
        parts = [read_user_items(Path(p), fmt) for p in paths]
        files = [
            {"file": Path(p).name, "items": len(part.items)}
            for p, part in zip(paths, parts, strict=True)
        ]
        items = tuple(item for part in parts for item in part.items)
        located = tuple(where for part in parts for where in part.locations)
        return ImportedItems(items, (), {"format": fmt, "files": files}), located
    imported = importer(fmt)(list(paths))
    sources = ", ".join(str(p) for p in paths)
    return imported, tuple(f"{sources}: item {n}" for n in range(1, imported.count + 1))


def import_items(fmt: str, paths: Sequence[Path]) -> ImportedItems:
    """Read ``paths`` as ``fmt``."""
    return read_sources(fmt, paths)[0]


def dataset_name(name: str, kind: str) -> str:
    """``name`` as a dataset name: a bare ``my-set`` becomes ``<kind>/my-set``."""
    return name if "/" in name else f"{kind}/{name}"


def import_dataset(
    fmt: str,
    paths: Sequence[Path],
    *,
    name: str,
    version: str,
    owner: str,
    kind: DatasetKind | None = None,
    description: str = "",
    tool_schemas: Sequence[dict[str, Any]] = (),
) -> DatasetImport:
    """A dataset version (not yet published) holding the items of ``paths``.

    ``kind`` defaults to the name's prefix when it names a kind, else to the format's usual
    kind (``golden`` for your own files, ``adversarial`` for AgentDojo, ``benchmark``
    otherwise); a bare ``name`` takes the kind as its prefix. ``tool_schemas`` (a ``--tools``
    file) are shared by every item, beside those the sources define.
    """
    imported, locations = read_sources(fmt, paths)
    named = kind_of_name(name)
    chosen: DatasetKind = kind or (cast(DatasetKind, named) if named else DEFAULT_KINDS[fmt])
    dataset = Dataset(
        name=dataset_name(name, chosen),
        version=version,
        owner=owner,
        kind=chosen,
        items=imported.items,
        tool_schemas=(*imported.tool_schemas, *tool_schemas),
        provenance=imported.provenance,
        description=description,
    )
    return DatasetImport(dataset, locations)


__all__ = [
    "BENCHMARK_FORMATS",
    "FORMATS",
    "MULTI_TURN",
    "DatasetImport",
    "ImportedItems",
    "SourceError",
    "dataset_name",
    "import_dataset",
    "import_items",
    "importer",
]
