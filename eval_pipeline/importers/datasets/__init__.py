"""The dataset import: benchmark source files -> items (tau2, tau-bench v1, BFCL, AgentDojo).

``import_items(format, paths)`` reads the sources with that benchmark's reader
(``importers.benchmarks``: the same reader the trace import uses for its results files);
``import_dataset(...)`` wraps the items as a dataset version ready to publish. ``curation``
rebuilds the shipped datasets from the repository's fixtures.
"""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

from eval_pipeline.datasets.artefact import Dataset, DatasetKind, kind_of_name
from eval_pipeline.importers.imported import ImportedItems
from eval_pipeline.importers.source_files import SourceError

Importer = Callable[[Sequence[Path]], ImportedItems]

DEFAULT_KINDS: dict[str, DatasetKind] = {
    "tau2": "benchmark",
    "taubench": "benchmark",
    "bfcl": "benchmark",
    "agentdojo": "adversarial",
}
FORMATS: tuple[str, ...] = tuple(DEFAULT_KINDS)


def importer(fmt: str) -> Importer:
    """The import function for ``fmt`` (one of ``FORMATS``)."""
    if fmt == "tau2":
        from eval_pipeline.importers.benchmarks import tau2

        return tau2.import_tasks
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


def import_items(fmt: str, paths: Sequence[Path]) -> ImportedItems:
    """Read ``paths`` with the ``fmt`` importer."""
    if not paths:
        raise SourceError("no source paths given")
    return importer(fmt)(list(paths))


def import_dataset(
    fmt: str,
    paths: Sequence[Path],
    *,
    name: str,
    version: str,
    owner: str,
    kind: DatasetKind | None = None,
    description: str = "",
) -> Dataset:
    """A dataset version (not yet published) holding the items of ``paths``.

    ``kind`` defaults to the name's prefix when it names a kind, else to the format's usual kind
    (``adversarial`` for AgentDojo, ``benchmark`` otherwise).
    """
    imported = import_items(fmt, paths)
    named = kind_of_name(name)
    chosen: DatasetKind = kind or (cast(DatasetKind, named) if named else DEFAULT_KINDS[fmt])
    return Dataset(
        name=name,
        version=version,
        owner=owner,
        kind=chosen,
        items=imported.items,
        tool_schemas=imported.tool_schemas,
        provenance=imported.provenance,
        description=description,
    )


__all__ = ["FORMATS", "ImportedItems", "SourceError", "import_dataset", "import_items", "importer"]
