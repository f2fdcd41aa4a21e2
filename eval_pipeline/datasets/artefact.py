"""Versioned dataset artefacts: a named, owned, hashed, immutable set of items.

A dataset is identified by ``name`` (``<kind>/<slug>``, e.g. ``golden/retail-refunds``) and
``version`` (``v1``, ``v2``, ...). Its ``content_hash`` covers the items and tool schemas, never
the metadata, so two publications of the same content hash equally and an edited item always
changes the hash (and so needs a new version).
"""

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from eval_pipeline.datasets.codec import canonical_json, item_to_dict
from eval_pipeline.datasets.item import DatasetItem

DatasetKind = Literal["golden", "regression", "adversarial", "benchmark"]
KINDS: tuple[str, ...] = get_args(DatasetKind)

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)+$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_NUMBERED = re.compile(r"^v(\d+)$")


class DatasetError(ValueError):
    """A dataset is malformed, missing, or would break immutability."""


def tool_schema_name(schema: Mapping[str, Any]) -> str | None:
    """The tool name of a schema in OpenAI form, wrapped (``{"function": {...}}``) or flat."""
    inner = schema.get("function") if isinstance(schema.get("function"), Mapping) else schema
    name = inner.get("name") if isinstance(inner, Mapping) else None
    return str(name) if name else None


def content_hash(items: Iterable[DatasetItem], tool_schemas: Iterable[Mapping[str, Any]]) -> str:
    """``sha256:<hex>`` over the canonical JSON of the items (in order) and tool schemas."""
    digest = hashlib.sha256()
    for item in items:
        digest.update(canonical_json(item_to_dict(item)).encode())
        digest.update(b"\n")
    digest.update(b"--tools--\n")
    for schema in tool_schemas:
        digest.update(canonical_json(dict(schema)).encode())
        digest.update(b"\n")
    return "sha256:" + digest.hexdigest()


def version_sort_key(version: str) -> tuple[int, int, str]:
    """Order versions naturally: ``v2`` before ``v10``; unnumbered versions after, by text."""
    match = _NUMBERED.match(version)
    return (0, int(match.group(1)), "") if match else (1, 0, version)


def next_version(versions: Iterable[str]) -> str:
    """The next ``vN`` after the highest numbered version (``v1`` when there is none)."""
    numbers = [int(m.group(1)) for v in versions if (m := _NUMBERED.match(v))]
    return f"v{max(numbers, default=0) + 1}"


def kind_of_name(name: str) -> str | None:
    """The kind named by the first path segment of ``name``, if it is one."""
    head = name.split("/", 1)[0]
    return head if head in KINDS else None


@dataclass(frozen=True)
class Dataset:
    """One published (or publishable) dataset version.

    ``tool_schemas`` are the dataset-wide tool definitions (OpenAI function form);
    ``provenance`` records where the items came from (source files, upstream commit, licence).
    """

    name: str
    version: str
    owner: str
    kind: DatasetKind
    items: tuple[DatasetItem, ...]
    tool_schemas: tuple[dict[str, Any], ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    content_hash: str = ""

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise DatasetError(
                f"name {self.name!r}: expected '<kind>/<slug>' in lowercase, e.g. 'golden/support'"
            )
        if not _VERSION.match(self.version):
            raise DatasetError(f"{self.name}: version {self.version!r} is not a valid version")
        if self.kind not in KINDS:
            raise DatasetError(f"{self.name}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        named_kind = kind_of_name(self.name)
        if named_kind is not None and named_kind != self.kind:
            raise DatasetError(
                f"{self.name}: kind {self.kind!r} contradicts the name's prefix {named_kind!r}"
            )
        if not self.owner:
            raise DatasetError(f"{self.name}: owner is required")
        expected = content_hash(self.items, self.tool_schemas)
        if not self.content_hash:
            object.__setattr__(self, "content_hash", expected)
        elif self.content_hash != expected:
            raise DatasetError(
                f"{self.name}@{self.version}: content hash {self.content_hash} does not match "
                f"its items ({expected}); the artefact was modified after publication"
            )

    @property
    def ref(self) -> str:
        """``name@version``, the way logs and errors refer to a dataset version."""
        return f"{self.name}@{self.version}"

    @property
    def item_ids(self) -> tuple[str, ...]:
        """The item ids, in dataset order."""
        return tuple(item.item_id for item in self.items)

    @property
    def tool_names(self) -> frozenset[str]:
        """Names of every tool defined by the dataset or its items."""
        schemas = (*self.tool_schemas, *(s for i in self.items for s in i.tool_schemas))
        return frozenset(n for s in schemas if (n := tool_schema_name(s)))

    def item(self, item_id: str) -> DatasetItem:
        """The item with this id; ``KeyError`` naming the dataset when absent."""
        for candidate in self.items:
            if candidate.item_id == item_id:
                return candidate
        raise KeyError(f"{self.ref}: no item {item_id!r}")

    def revised(self, version: str, items: Iterable[DatasetItem], **changes: Any) -> "Dataset":
        """A new version with other items (and optionally other metadata); hash recomputed."""
        return replace(self, version=version, items=tuple(items), content_hash="", **changes)
