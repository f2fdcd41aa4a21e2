"""Where dataset versions live: JSONL items plus a JSON manifest, one folder per version.

Layout: ``<root>/<name>/<version>/manifest.json`` and ``items.jsonl`` (one canonical JSON item
per line). A published version is never rewritten: publishing the same name and version again
with the same content is a no-op, with different content an error. Read-only roots (the
datasets shipped as package data in ``eval_pipeline/datasets/shipped/``) are searched after the
writable root.
"""

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.artefact import (
    Dataset,
    DatasetError,
    next_version,
    version_sort_key,
)
from eval_pipeline.datasets.codec import ItemDecodeError, item_from_json, item_to_json
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.package_data import package_path

MANIFEST = "manifest.json"
ITEMS = "items.jsonl"
FORMAT_VERSION = 1
NOT_PUBLISHED = "no such dataset: publish one with `eval-pipeline datasets import NAME FILE`"
"""What a missing dataset's error says, wherever it is named (a suite, a load)."""


class DatasetNotFoundError(DatasetError, LookupError):
    """No such dataset name or version in any root of the store."""


class DatasetImmutableError(DatasetError):
    """A published version would be overwritten with different content."""


def shipped_datasets_dir() -> Path:
    """The read-only datasets shipped with the code (package data, ``datasets/shipped/``)."""
    return package_path("eval_pipeline.datasets", "shipped")


def _manifest(dataset: Dataset) -> dict[str, Any]:
    return {
        "format_version": FORMAT_VERSION,
        "name": dataset.name,
        "version": dataset.version,
        "owner": dataset.owner,
        "kind": dataset.kind,
        "description": dataset.description,
        "content_hash": dataset.content_hash,
        "item_count": len(dataset.items),
        "provenance": dataset.provenance,
        "tool_schemas": list(dataset.tool_schemas),
    }


def read_dataset(folder: Path) -> Dataset:
    """Load the dataset version stored in ``folder`` and verify its content hash.

    A manifest without a ``sha256:`` content hash is refused: nothing else proves the items
    are the ones published.
    """
    manifest_path = folder / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{manifest_path}: not valid JSON ({exc.msg})") from exc
    if not isinstance(manifest, dict):
        raise DatasetError(f"{manifest_path}: expected a JSON object")
    recorded = manifest.get("content_hash")
    if not isinstance(recorded, str) or not recorded.startswith("sha256:"):
        # An empty hash would make Dataset compute one from whatever the items now are: a
        # hand-edited or truncated version would then read as intact.
        raise DatasetError(
            f"{manifest_path}: content_hash: {recorded!r} is not the 'sha256:<hex>' hash of the "
            "items; a version is published by `eval-pipeline datasets import`, never by hand"
        )
    items: list[DatasetItem] = []
    items_path = folder / ITEMS
    with items_path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                items.append(item_from_json(line))
            except ItemDecodeError as exc:
                raise DatasetError(f"{items_path}:{line_no}: {exc}") from exc
    if len(items) != manifest.get("item_count"):
        raise DatasetError(
            f"{items_path}: {len(items)} items, manifest says {manifest.get('item_count')}"
        )
    try:
        return Dataset(
            name=manifest["name"],
            version=manifest["version"],
            owner=manifest["owner"],
            kind=manifest["kind"],
            items=tuple(items),
            tool_schemas=tuple(manifest.get("tool_schemas") or ()),
            provenance=dict(manifest.get("provenance") or {}),
            description=str(manifest.get("description") or ""),
            content_hash=manifest["content_hash"],
        )
    except KeyError as exc:
        raise DatasetError(f"{manifest_path}: missing field {exc.args[0]!r}") from exc


def write_dataset(dataset: Dataset, folder: Path) -> None:
    """Write ``dataset`` into ``folder`` atomically (a temporary folder renamed into place)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    staging.chmod(0o755)  # mkdtemp creates 0700; published versions are readable by all
    (staging / ITEMS).write_text(
        "".join(item_to_json(item) + "\n" for item in dataset.items), encoding="utf-8"
    )
    (staging / MANIFEST).write_text(
        json.dumps(_manifest(dataset), indent=2, sort_keys=True, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    try:
        os.rename(staging, folder)
    except OSError as exc:
        for leftover in staging.iterdir():
            leftover.unlink()
        staging.rmdir()
        raise DatasetImmutableError(f"{folder}: already exists (published concurrently)") from exc


class DatasetStore:
    """Publish and load dataset versions under ``root`` (plus optional read-only roots)."""

    def __init__(self, root: Path, *, read_only_roots: Sequence[Path] = ()) -> None:
        self.root = Path(root)
        self.read_only_roots = tuple(Path(r) for r in read_only_roots)

    def __repr__(self) -> str:
        return (
            f"DatasetStore({self.root!s}, read_only_roots={[str(r) for r in self.read_only_roots]})"
        )

    @property
    def roots(self) -> tuple[Path, ...]:
        """Every root, searched in order: the writable one first."""
        return (self.root, *self.read_only_roots)

    def _folder(self, root: Path, name: str, version: str) -> Path:
        return root.joinpath(*name.split("/"), version)

    def _find(self, name: str, version: str) -> Path | None:
        for root in self.roots:
            folder = self._folder(root, name, version)
            if (folder / MANIFEST).is_file():
                return folder
        return None

    def publish(self, dataset: Dataset) -> Dataset:
        """Publish ``dataset``; return the stored version.

        Raises:
            DatasetImmutableError: the name and version exist with different content.
        """
        existing = self._find(dataset.name, dataset.version)
        if existing is not None:
            stored = read_dataset(existing)
            if stored.content_hash != dataset.content_hash:
                raise DatasetImmutableError(
                    f"{dataset.ref} is already published with content {stored.content_hash}; "
                    f"a changed dataset needs a new version (next free: "
                    f"{self.next_version(dataset.name)})"
                )
            return stored
        write_dataset(dataset, self._folder(self.root, dataset.name, dataset.version))
        return self.load(dataset.name, dataset.version)

    def load(self, name: str, version: str) -> Dataset:
        """The dataset version ``name``@``version``; ``DatasetNotFoundError`` if absent."""
        folder = self._find(name, version)
        if folder is None:
            known = self.versions(name)
            hint = f" (known versions: {', '.join(known)})" if known else f" ({NOT_PUBLISHED})"
            raise DatasetNotFoundError(f"dataset {name}@{version} not found{hint}")
        return read_dataset(folder)

    def exists(self, name: str, version: str) -> bool:
        """Whether ``name``@``version`` is published in any root."""
        return self._find(name, version) is not None

    def versions(self, name: str) -> list[str]:
        """Published versions of ``name``, oldest first (``v2`` before ``v10``)."""
        found: set[str] = set()
        for root in self.roots:
            folder = root.joinpath(*name.split("/"))
            if folder.is_dir():
                found.update(
                    p.parent.name
                    for p in folder.glob(f"*/{MANIFEST}")
                    if not p.parent.name.startswith(".")
                )
        return sorted(found, key=version_sort_key)

    def latest(self, name: str) -> Dataset:
        """The newest version of ``name``."""
        versions = self.versions(name)
        if not versions:
            raise DatasetNotFoundError(f"dataset {name} not found")
        return self.load(name, versions[-1])

    def next_version(self, name: str) -> str:
        """The version the next publication of ``name`` should take (``v1`` if none)."""
        return next_version(self.versions(name))

    def list(self) -> list[tuple[str, str]]:
        """Every ``(name, version)`` in the store, sorted by name then version."""
        found: set[tuple[str, str]] = set()
        for root in self.roots:
            if not root.is_dir():
                continue
            for manifest in root.rglob(MANIFEST):
                relative = manifest.parent.relative_to(root).parts
                if len(relative) >= 3 and not any(part.startswith(".") for part in relative):
                    found.add(("/".join(relative[:-1]), relative[-1]))
        return sorted(found, key=lambda pair: (pair[0], version_sort_key(pair[1])))

    def item(self, name: str, version: str, item_id: str) -> DatasetItem:
        """One item of one dataset version."""
        return self.load(name, version).item(item_id)


def default_dataset_store() -> DatasetStore:
    """The home's store (``current_home().datasets``), falling back to shipped datasets."""
    from eval_pipeline.home import current_home

    return DatasetStore(current_home().datasets, read_only_roots=(shipped_datasets_dir(),))
