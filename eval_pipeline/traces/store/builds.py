"""Which build each span of a batch is stored under, and where a trace's spans are.

The explicit build wins, else the eval-context build attribute on the trace's root (in the
batch: ``build_of_roots``; or already stored: the ledger), else the default. Children stored
before their root sit under the default build until read with the root's build
(``rootless_builds``).
"""

from collections.abc import Sequence
from operator import itemgetter, methodcaller

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.store.span_table import ATTRIBUTES, PARENT_SPAN_ID, TRACE_ID, Row

_ATTRIBUTES = itemgetter(ATTRIBUTES)
_BUILD_ATTRIBUTE = methodcaller("get", eval_context.BUILD_ID)


def by_target(rows: Sequence[Row], targets: Sequence[str]) -> dict[str, list[Row]]:
    """Rows grouped by the build each goes to, in order."""
    first = targets[0] if targets else ""
    if targets.count(first) == len(targets):
        return {first: list(rows)} if rows else {}
    grouped: dict[str, list[Row]] = {}
    for row, target in zip(rows, targets, strict=True):
        grouped.setdefault(target, []).append(row)
    return grouped


def build_of_roots(rows: Sequence[Row]) -> dict[str, str]:
    """Trace id -> the build its root (else its least deep span) names, for traces naming one."""
    builds: dict[str, tuple[int, str]] = {}
    named = list(map(_BUILD_ATTRIBUTE, map(_ATTRIBUTES, rows)))
    if named.count(None) == len(named):  # no span names a build (one pass over the column)
        return {}
    for row, build in zip(rows, named, strict=True):
        if build is None:
            continue
        rank = 0 if row[PARENT_SPAN_ID] is None else 1
        trace_id = row[TRACE_ID]
        seen = builds.get(trace_id)
        if seen is None or rank < seen[0]:
            builds[trace_id] = (rank, str(build))
    return {trace_id: build for trace_id, (_, build) in builds.items()}


def rootless_builds(homes: dict[str, dict[str, bool]], build: str) -> dict[str, set[str]]:
    """Other builds holding spans, not roots, of the traces rooted in ``build``."""
    found: dict[str, set[str]] = {}
    for trace_id, builds in homes.items():
        if builds.get(build):
            for other, has_root in builds.items():
                if other != build and not has_root:
                    found.setdefault(other, set()).add(trace_id)
    return found
