"""The trace store: spans as Parquet, partitioned by build (and by day for production).

Layout: ``<root>/spans/build=<build>/day=<day|all>/part-<uuid>.parquet``. Writes are
idempotent by (trace id, span id) within a build: a span already stored is skipped, so
re-ingesting a file or receiving a retried OTLP request stores nothing twice. Each part is
written to a temporary name and renamed, so a crash never leaves a half-written part.

Build of a span: the explicit ``build`` argument wins, else the eval-context build attribute
on its trace's root (in the batch, or already stored for a late span), else ``unassigned``.
"""

import os
import uuid
from collections.abc import Iterable, Sequence
from operator import itemgetter
from pathlib import Path
from urllib.parse import quote, unquote

import pyarrow as pa
import pyarrow.parquet as pq

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.assemble import assemble_runs
from eval_pipeline.traces.model import AgentRun, Span
from eval_pipeline.traces.span_table import (
    ATTRIBUTES,
    PARENT_SPAN_ID,
    SPAN_ID,
    TRACE_ID,
    Row,
    from_table,
    rows_table,
    span_row,
)

UNASSIGNED = "unassigned"
PRODUCTION = "production"
"""The build the OTLP receiver files live traffic under (traces whose root names no build)."""
_ALL_DAYS = "all"
_SEPARATOR = "\x00"
_TRACE_ID = itemgetter(TRACE_ID)
_SPAN_ID = itemgetter(SPAN_ID)


def _key(trace_id: str, span_id: str) -> str:
    """The idempotence key of a span (ids never hold a NUL)."""
    return trace_id + _SEPARATOR + span_id


def _build_of_roots(rows: Iterable[Row]) -> dict[str, str]:
    builds: dict[str, tuple[int, str]] = {}
    for row in rows:
        build = row[ATTRIBUTES].get(eval_context.BUILD_ID)
        if build is None:
            continue
        rank = 0 if row[PARENT_SPAN_ID] is None else 1
        trace_id = row[TRACE_ID]
        seen = builds.get(trace_id)
        if seen is None or rank < seen[0]:
            builds[trace_id] = (rank, str(build))
    return {trace_id: build for trace_id, (_, build) in builds.items()}


class TraceStore:
    """Spans on local disk as partitioned Parquet (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._spans_dir = self.root / "spans"
        # Stored (trace id, span id) pairs per build, as ``_key`` strings: unlike tuples,
        # strings are not tracked by the cyclic collector, which would otherwise walk every
        # key once after each ingested batch.
        self._known: dict[str, set[str]] = {}
        self._trace_builds: dict[str, str] | None = None

    def _build_dir(self, build: str) -> Path:
        return self._spans_dir / f"build={quote(build, safe='')}"

    def _files(self, build: str, day: str | None = None) -> list[Path]:
        base = self._build_dir(build)
        if day is not None:
            base = base / f"day={quote(day, safe='')}"
        return sorted(base.rglob("part-*.parquet")) if base.exists() else []

    def _keys(self, build: str) -> set[str]:
        known = self._known.get(build)
        if known is None:
            known = set()
            for path in self._files(build):
                table = pq.read_table(path, columns=["trace_id", "span_id"])
                known.update(
                    map(
                        _key,
                        table.column("trace_id").to_pylist(),
                        table.column("span_id").to_pylist(),
                    )
                )
            self._known[build] = known
        return known

    def _stored_trace_builds(self) -> dict[str, str]:
        if self._trace_builds is None:
            self._trace_builds = {}
            for build in self.builds():
                for key in self._keys(build):
                    self._trace_builds.setdefault(key.partition(_SEPARATOR)[0], build)
        return self._trace_builds

    def builds_for(
        self, spans: Sequence[Span], build: str | None = None, default: str = UNASSIGNED
    ) -> list[str]:
        """The build each span would be stored under (see the module docstring).

        ``default`` replaces ``unassigned`` for traces with no build anywhere (the receiver
        files live traffic under ``production``).
        """
        return self.builds_for_rows(list(map(span_row, spans)), build, default)

    def builds_for_rows(
        self, rows: Sequence[Row], build: str | None = None, default: str = UNASSIGNED
    ) -> list[str]:
        """``builds_for`` of the spans these store rows hold (``span_table.span_row``)."""
        if build is not None:
            return [build] * len(rows)
        roots = _build_of_roots(rows)
        missing = {row[TRACE_ID] for row in rows} - set(roots)
        if missing and self._spans_dir.exists():
            stored = self._stored_trace_builds()
            roots.update({t: stored[t] for t in missing if t in stored})
        get = roots.get
        return [get(row[TRACE_ID], default) for row in rows]

    def write_spans(
        self,
        spans: Sequence[Span],
        *,
        build: str | None = None,
        day: str | None = None,
        targets: Sequence[str] | None = None,
    ) -> int:
        """Store the spans not stored yet; returns how many were newly stored.

        ``targets`` (optional) is ``builds_for(spans, build)`` when the caller has it already.
        """
        return self.write_rows(list(map(span_row, spans)), build=build, day=day, targets=targets)

    def write_rows(
        self,
        rows: Sequence[Row],
        *,
        build: str | None = None,
        day: str | None = None,
        targets: Sequence[str] | None = None,
    ) -> int:
        """``write_spans`` for the store rows of spans (``span_table.span_row``)."""
        if targets is None:
            targets = self.builds_for_rows(rows, build)
        grouped = self._new_rows(rows, targets)
        written = 0
        for target, members in grouped.items():
            folder = self._build_dir(target) / f"day={quote(day or _ALL_DAYS, safe='')}"
            folder.mkdir(parents=True, exist_ok=True)
            self._write(folder, rows_table(members, [target] * len(members), day))
            written += len(members)
            if self._trace_builds is not None:
                for stored in members:
                    self._trace_builds.setdefault(stored[TRACE_ID], target)
        return written

    def _new_rows(self, rows: Sequence[Row], targets: Sequence[str]) -> dict[str, list[Row]]:
        """The rows not stored yet (nor earlier in ``rows``), by target build, in order."""
        keys = list(map(_key, map(_TRACE_ID, rows), map(_SPAN_ID, rows)))
        first = targets[0] if targets else ""
        if targets.count(first) == len(targets):
            # One build and nothing seen before: the usual case, decided in bulk.
            known = self._keys(first)
            if known.isdisjoint(keys) and len(set(keys)) == len(keys):
                known.update(keys)
                return {first: list(rows)} if rows else {}
        grouped: dict[str, list[Row]] = {}
        stored: dict[str, set[str]] = {}
        for row, key, target in zip(rows, keys, targets, strict=True):
            seen = stored.get(target)
            if seen is None:
                seen = stored[target] = self._keys(target)
            if key in seen:
                continue
            seen.add(key)
            grouped.setdefault(target, []).append(row)
        return grouped

    @staticmethod
    def _write(folder: Path, table: pa.Table) -> None:
        name = f"part-{uuid.uuid4().hex}.parquet"
        temporary = folder / f".{name}.tmp"
        pq.write_table(table, temporary)
        os.replace(temporary, folder / name)

    def read_spans(self, build: str, day: str | None = None) -> list[Span]:
        """Every span stored for ``build`` (one day of it when ``day`` is given)."""
        files = self._files(build, day)
        if not files:
            return []
        return from_table(pa.concat_tables(pq.read_table(path) for path in files))

    def runs(self, build: str) -> list[AgentRun]:
        """The agent runs of a build, assembled from its stored spans."""
        return assemble_runs(self.read_spans(build))

    def builds(self) -> list[str]:
        """The builds that have stored spans, sorted."""
        if not self._spans_dir.exists():
            return []
        return sorted(
            unquote(path.name.removeprefix("build="))
            for path in self._spans_dir.iterdir()
            if path.is_dir() and path.name.startswith("build=")
        )

    def find_trace(self, trace_id: str) -> tuple[str, list[Span]] | None:
        """``(build, spans)`` of a stored trace, or None when no build holds it."""
        wanted = trace_id.lower()
        for build in self.builds():
            matches = [
                pq.read_table(path, filters=[("trace_id", "=", wanted)])
                for path in self._files(build)
            ]
            table = pa.concat_tables(matches) if matches else None
            if table is not None and table.num_rows:
                return build, from_table(table)
        return None
