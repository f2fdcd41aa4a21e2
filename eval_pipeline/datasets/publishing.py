"""Publishing a dataset version a person brought: validated first, refused whole if invalid.

Every way a person publishes a version (``datasets import`` of any format, ``triage``,
``review label --verdict defect --dataset``, the shipped sets' curation) goes through
``publish_checked``: the version is validated with the same rules as ``datasets validate``
(``validation.validate_dataset``: unique ids, input, slices, references, ordering, tools
defined, tool schemas, arguments) *before* it is written, and refused with one line per
problem, each naming where the item came from (``file:line`` for line-based files), so an
invalid version is never published. ``DatasetStore.publish`` below it only writes.

Asked to (``latest_if_unchanged``), a version whose content equals the latest published one is
not published again: the latest is returned, so importing the same file twice does not mint a
second version.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from eval_pipeline.datasets.artefact import Dataset, DatasetError
from eval_pipeline.datasets.store import DatasetStore
from eval_pipeline.datasets.validation import Offence, validate_dataset

MAX_LINES = 50
"""Most problems listed in one refusal (the count of the rest is given)."""


class DatasetRefusedError(DatasetError):
    """A version failed validation and was not published; ``problems`` has one line each."""

    def __init__(self, ref: str, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        shown = self.problems[:MAX_LINES]
        more = len(self.problems) - len(shown)
        tail = [f"... and {more} more problem(s)"] if more else []
        super().__init__(
            "\n".join([*shown, *tail, f"{ref}: {len(self.problems)} problem(s): nothing published"])
        )


@dataclass(frozen=True)
class Published:
    """The stored version, and whether it was already there with this content."""

    dataset: Dataset
    unchanged: bool


def _line(offence: Offence, dataset: Dataset, locations: Sequence[str]) -> str:
    detail = f": {offence.detail}" if offence.detail else ""
    if offence.row is None:  # the dataset as a whole (its shared tool schemas, no items)
        return f"{dataset.ref}: {offence.rule}{detail}"
    where = locations[offence.row] if offence.row < len(locations) else dataset.ref
    return f"{where}: item {offence.item_id!r}: {offence.rule}{detail}"


def problems(
    dataset: Dataset, locations: Sequence[str] = (), required_slices: Sequence[str] = ()
) -> list[str]:
    """Why ``dataset`` may not be published: one line per item and rule, in item order.

    ``locations[i]`` says where item ``i`` came from (``file:line``); without it the dataset's
    ref stands in.
    """
    result = validate_dataset(dataset, required_slices=required_slices)
    if result.success:
        return []
    ordered = sorted(
        result.offences, key=lambda o: (-1 if o.row is None else o.row, o.rule, o.detail)
    )
    return list(dict.fromkeys(_line(o, dataset, locations) for o in ordered))


def publish_checked(
    store: DatasetStore,
    dataset: Dataset,
    locations: Sequence[str] = (),
    *,
    latest_if_unchanged: bool = False,
) -> Published:
    """Validate ``dataset`` and publish it (see the module docstring).

    Args:
        store: Where to publish.
        dataset: The version to publish.
        locations: Where each item came from (``file:line``), for the refusal's lines.
        latest_if_unchanged: When the latest published version has this content, return it
            instead of publishing ``dataset``'s version (its version was only the next free one).

    Raises:
        DatasetRefusedError: the version breaks a validation rule; nothing was written.
        DatasetImmutableError: the name and version exist with other content.
    """
    versions = store.versions(dataset.name)
    if latest_if_unchanged and versions:
        latest = store.load(dataset.name, versions[-1])
        if latest.content_hash == dataset.content_hash:
            return Published(latest, unchanged=True)
    found = problems(dataset, locations)
    if found:
        raise DatasetRefusedError(dataset.ref, found)
    existed = dataset.version in versions
    return Published(store.publish(dataset), unchanged=existed)
