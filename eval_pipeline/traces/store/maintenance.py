"""Keeping a trace store lean: orphan parts removed, small parts compacted.

``clean``: a failure between writing a part and recording it in the ledger (a crash, a lost
database connection) leaves a part the ledger does not name; readers never see it, so it is
safe to delete. A writer on this host holds the build's lock from writing a part to recording
it and ``clean`` takes that lock, so a part in flight here is never deleted; ``min_age_seconds``
keeps parts of writers on other hosts sharing the store (the default: ten minutes).

``compact``: the receiver writes one part per request; many small parts make every read
slower. Compaction rewrites a build-day's small parts as one part and swaps them in the
ledger in one transaction (the old files are deleted after the commit; a crash before that
leaves orphans for ``clean``). Run by ``eval-pipeline traces compact``.
"""

import time
from pathlib import Path
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq

from eval_pipeline.traces.store.parts import write_part
from eval_pipeline.traces.store.trace_store import TraceStore

SMALL_PART_ROWS = 50_000
"""Parts with fewer rows than this are compacted."""


def _unrecorded(store: TraceStore, build: str, recorded: set[Path], min_age: float) -> list[Path]:
    folder = store.build_dir(build)
    now = time.time()
    found = [*folder.rglob(".part-*.tmp"), *folder.rglob("part-*.parquet")]
    return [p for p in found if p not in recorded and now - p.stat().st_mtime >= min_age]


def clean(store: TraceStore, *, min_age_seconds: float = 600.0) -> int:
    """Delete parts (and temporary parts) the ledger does not name; how many were deleted."""
    if not store.spans_dir.exists():
        return 0
    removed = 0
    for folder in sorted(store.spans_dir.glob("build=*")):
        build = unquote(folder.name.removeprefix("build="))
        with store.write_lock(build):
            recorded = set(store._files(build))
            for path in _unrecorded(store, build, recorded, min_age_seconds):
                path.unlink(missing_ok=True)
                removed += 1
    return removed


def compact(store: TraceStore, *, small_rows: int = SMALL_PART_ROWS) -> int:
    """Rewrite each build-day's small parts as one; how many parts were replaced."""
    replaced = 0
    for build in store.builds():
        for trusted in (True, False):  # a trusted writer's parts apart (``trace_store``)
            by_day: dict[str, list[str]] = {}
            for path, day, rows in store.ledger.parts(build, trusted=trusted):
                if rows < small_rows:
                    by_day.setdefault(day, []).append(path)
            for day, parts in sorted(by_day.items()):
                if len(parts) > 1 and _compact_day(store, build, day, parts, trusted):
                    replaced += len(parts)
    return replaced


def _compact_day(
    store: TraceStore, build: str, day: str, parts: list[str], trusted: bool = True
) -> bool:
    paths = [store.spans_dir / part for part in parts]
    table = pa.concat_tables([pq.read_table(p) for p in paths], promote_options="default")
    folder = paths[0].parent
    with store.write_lock(build):
        name = write_part(folder, table)
        new = str((folder / name).relative_to(store.spans_dir))
        with store.ledger.engine.begin() as connection:
            swapped = store.ledger.replace_parts(
                connection, parts, new, build=build, day=day, rows=table.num_rows, trusted=trusted
            )
            if not swapped:
                connection.rollback()
        if not swapped:
            (folder / name).unlink()
            return False
    for path in paths:
        path.unlink(missing_ok=True)
    return True
