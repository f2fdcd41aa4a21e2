"""References an item lacks by design, as the item itself declares them.

A regression case triaged from a production trace has no eval context and no dataset item to
inherit from: it has an expected trajectory or a reference answer only when the reviewer gave
one. Triage records which references the case lacks on purpose in
``provenance["absent_by_design"]``; a scorer whose metric needs one of them says
``not_applicable`` for that case instead of ``unscored``. The decision rests on this explicit
declaration only: an item that does not declare it (every golden, adversarial or imported
item) and lacks a reference is missing data, and stays ``unscored``.
"""

from eval_pipeline.datasets.item import DatasetItem

KEY = "absent_by_design"
"""The provenance key listing the ``DatasetItem`` fields the item lacks by design."""

DECLARABLE = frozenset({"expected_tool_calls", "reference_answer"})
"""The references a case may declare absent (what a reviewer may or may not give)."""


def absent_by_design(item: DatasetItem, field: str) -> bool:
    """Whether ``item`` declares that it lacks ``field`` on purpose (and indeed lacks it)."""
    declared = item.provenance.get(KEY)
    if not isinstance(declared, list | tuple) or field not in declared:
        return False
    return not getattr(item, field)


def declaration(item: DatasetItem) -> list[str]:
    """The ``absent_by_design`` list for ``item``: the declarable references it lacks."""
    return sorted(f for f in DECLARABLE if not getattr(item, f))
