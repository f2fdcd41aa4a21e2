"""The trace store: spans as Parquet, partitioned by build (and by day for production).

Layout: ``<root>/spans/build=<build>/day=<day|all>/part-<uuid>.parquet``. Writes are
idempotent by (trace id, span id) within a build: a span already stored is skipped, so
re-ingesting a file or receiving a retried OTLP request stores nothing twice, also when
several processes on one host write the same build: a per-build write lock (``_write_lock``)
and a per-build manifest of parts (``_MANIFEST``) from which each writer learns what the others
stored, without listing the build's folder on every write. Each part is written to a
temporary name and renamed, so a crash never leaves a half-written part.

Build of a span: the explicit ``build`` argument wins, else the eval-context build attribute
on its trace's root (in the batch, or already stored for a late span), else ``unassigned``.
"""

import fcntl
import os
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from urllib.parse import quote, unquote

import pyarrow as pa
import pyarrow.parquet as pq

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import AgentRun, Span
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.store.span_table import (
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
_MANIFEST = ".parts.log"
"""In each build folder: one line per part written (``day=.../part-....parquet``)."""
_TRACE_ID = itemgetter(TRACE_ID)
_SPAN_ID = itemgetter(SPAN_ID)


def _key(trace_id: str, span_id: str) -> str:
    """The idempotence key of a span (ids never hold a NUL)."""
    return trace_id + _SEPARATOR + span_id


def _by_target(rows: Sequence[Row], targets: Sequence[str]) -> dict[str, list[Row]]:
    """Rows grouped by the build each goes to, in order."""
    first = targets[0] if targets else ""
    if targets.count(first) == len(targets):
        return {first: list(rows)} if rows else {}
    grouped: dict[str, list[Row]] = {}
    for row, target in zip(rows, targets, strict=True):
        grouped.setdefault(target, []).append(row)
    return grouped


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
        self._parts: dict[str, set[str]] = {}  # part files already read into ``_known``
        self._offsets: dict[str, int] = {}  # how far each build's manifest has been read
        self._trace_builds: dict[str, str] | None = None

    def _build_dir(self, build: str) -> Path:
        return self._spans_dir / f"build={quote(build, safe='')}"

    def _files(self, build: str, day: str | None = None) -> list[Path]:
        base = self._build_dir(build)
        if day is not None:
            base = base / f"day={quote(day, safe='')}"
        return sorted(base.rglob("part-*.parquet")) if base.exists() else []

    def _keys(self, build: str) -> set[str]:
        """The keys stored in ``build``, including parts other writers added since last time.

        The first call reads every part on disk; later calls read only the parts named in the
        build's manifest (``_MANIFEST``, appended by every writer under the write lock) since
        the last call, so a long-running writer does not list the build on every write.
        ``write_rows`` calls this under the build's write lock, so what it decides is new is new.
        """
        known = self._known.get(build)
        if known is None:
            known = self._known[build] = set()
            self._parts[build] = set()
            # The manifest's end is taken first: a part logged later is read next time.
            self._offsets[build] = self._manifest_end(build)
            for path in self._files(build):
                self._read_keys(build, path)
            return known
        for relative in self._new_manifest_lines(build):
            self._read_keys(build, self._build_dir(build) / relative)
        return known

    def _read_keys(self, build: str, path: Path) -> None:
        read = self._parts[build]
        if path.name in read:
            return
        table = pq.read_table(path, columns=["trace_id", "span_id"])
        self._known[build].update(
            map(_key, table.column("trace_id").to_pylist(), table.column("span_id").to_pylist())
        )
        read.add(path.name)

    def _manifest_end(self, build: str) -> int:
        manifest = self._build_dir(build) / _MANIFEST
        return manifest.stat().st_size if manifest.exists() else 0

    def _new_manifest_lines(self, build: str) -> list[str]:
        """Manifest lines (part paths in the build) after the last read, whole lines only."""
        manifest = self._build_dir(build) / _MANIFEST
        if not manifest.exists():
            return []
        with open(manifest, "rb") as handle:
            handle.seek(self._offsets[build])
            text = handle.read()
        complete = text[: text.rfind(b"\n") + 1]
        self._offsets[build] += len(complete)
        return complete.decode().splitlines()

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
        written = 0
        for target, members in _by_target(rows, targets).items():
            folder = self._build_dir(target) / f"day={quote(day or _ALL_DAYS, safe='')}"
            folder.mkdir(parents=True, exist_ok=True)
            with self._write_lock(target):
                fresh, keys = self._unseen(target, members)
                if not fresh:
                    continue
                name = self._write(folder, rows_table(fresh, [target] * len(fresh), day))
                self._log_part(target, f"{folder.name}/{name}")
                self._parts[target].add(name)
                self._known[target].update(keys)
            written += len(fresh)
            if self._trace_builds is not None:
                for stored in fresh:
                    self._trace_builds.setdefault(stored[TRACE_ID], target)
        return written

    @contextmanager
    def _write_lock(self, build: str) -> Iterator[None]:
        """Hold the build's write lock: one writer at a time decides what is new and writes it.

        An advisory ``flock`` on a file in the build's folder, so writers in other processes
        on this host (the receiver and a CLI ingestion, say) cannot both store one span.
        """
        with open(self._build_dir(build) / ".write.lock", "ab") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _log_part(self, build: str, relative: str) -> None:
        """Name a new part in the build's manifest (under the write lock), past our offset.

        The part is on disk before its line is written, so a reader never meets a line for a
        missing part. A crash between the two leaves the part unlogged: writers already
        running learn of it only when they start again.
        """
        with open(self._build_dir(build) / _MANIFEST, "ab") as handle:
            handle.write(relative.encode() + b"\n")
            # Only this writer appended since its last read (it holds the lock): skip its line.
            self._offsets[build] = handle.tell()

    def _unseen(self, build: str, rows: list[Row]) -> tuple[list[Row], list[str]]:
        """The rows not stored in ``build`` yet (nor earlier in ``rows``), and their keys."""
        known = self._keys(build)
        keys = list(map(_key, map(_TRACE_ID, rows), map(_SPAN_ID, rows)))
        if known.isdisjoint(keys) and len(set(keys)) == len(keys):
            return rows, keys  # the usual case, decided in bulk
        fresh: list[Row] = []
        fresh_keys: list[str] = []
        seen: set[str] = set()
        for row, key in zip(rows, keys, strict=True):
            if key in known or key in seen:
                continue
            seen.add(key)
            fresh.append(row)
            fresh_keys.append(key)
        return fresh, fresh_keys

    @staticmethod
    def _write(folder: Path, table: pa.Table) -> str:
        """Write one part (to a temporary name, then renamed); returns its file name."""
        name = f"part-{uuid.uuid4().hex}.parquet"
        temporary = folder / f".{name}.tmp"
        pq.write_table(table, temporary)
        os.replace(temporary, folder / name)
        return name

    def read_spans(self, build: str, day: str | None = None) -> list[Span]:
        """Every span stored for ``build`` (one day of it when ``day`` is given)."""
        files = self._files(build, day)
        if not files:
            return []
        return from_table(pa.concat_tables(pq.read_table(path) for path in files))

    def runs(self, build: str) -> list[AgentRun]:
        """The agent runs of a build, assembled from its stored spans."""
        return assemble_runs(self.read_spans(build))

    def version(self, build: str) -> tuple[tuple[str, int, int], ...]:
        """What a build's stored spans are now: (part, size, mtime) of every part, sorted.

        Equal versions mean equal spans (parts are written once and renamed into place), so a
        reader may keep what it assembled from a version.
        """
        return tuple(
            (str(path), stat.st_size, stat.st_mtime_ns)
            for path in self._files(build)
            for stat in (path.stat(),)
        )

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
