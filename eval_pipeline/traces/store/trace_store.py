"""The trace store: spans as Parquet, partitioned by build (and by day for production).

Layout: ``<root>/spans/build=<build>/day=<day|all>/part-<uuid>.parquet``; which parts and
spans the store holds is recorded in the span ledger (``ledger``, in the SQL state database:
``state_url``, else ``EVAL_PIPELINE_STATE_URL``, else SQLite at ``<root>/ledger.db``).

Exactly once: writes are idempotent by (trace id, span id) within a build, across processes
and hosts that share the store and the database. A part is written under a temporary name,
fsynced, renamed and its folder fsynced; then its keys and its name are committed to the
ledger in one transaction under a unique constraint. A part the ledger does not name is never
read, so a failure between the two steps stores nothing, and the retry stores each span once.
``write_rows`` returns only after the commit: an acknowledged span survives a crash of the
process or the host (the durability promise in the README).

Build of a span: the explicit ``build`` argument wins, else the build already holding it (a
retry is a duplicate wherever the first copy went, whatever arrived since), else the
eval-context build attribute on its trace's root (in the batch, or already stored), else
``default`` (``unassigned``).
A run is one run whatever the arrival order: children stored before their root (under the
default build) are read with the root's build (``read_spans``), which holds its eval context.

The stitching rule: a rootless fragment stored under another build joins a trace only when
it was written by a trusted writer (``write_rows(trusted=True)``: local ingestion, or a
receiver token that may write evaluation builds and whose build the receiver honoured; the
ledger records it per part). An untrusted writer's spans are read only with the build they are
stored under: trace ids are not secret, and a production token's span carrying a baseline's
trace id must not change the baseline's run.
"""

import fcntl
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import repeat
from operator import is_, itemgetter
from pathlib import Path
from urllib.parse import quote, unquote

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from sqlalchemy.exc import IntegrityError

from eval_pipeline.traces.model import AgentRun, Span
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.store.builds import build_of_roots, by_target, rootless_builds
from eval_pipeline.traces.store.ledger import Ledger, ledger_engine
from eval_pipeline.traces.store.parts import read_parts, store_id, write_part
from eval_pipeline.traces.store.span_table import (
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
ALL_DAYS = "all"
STATE_URL_ENV = "EVAL_PIPELINE_STATE_URL"
_TRACE_ID = itemgetter(TRACE_ID)
_SPAN_ID = itemgetter(SPAN_ID)
_PARENT_SPAN_ID = itemgetter(PARENT_SPAN_ID)


class TraceStore:
    """Spans on disk as partitioned Parquet, recorded in the span ledger (module docstring)."""

    def __init__(self, root: Path, state_url: str | None = None) -> None:
        self.root = Path(root)
        self.spans_dir = self.root / "spans"
        url = state_url or os.environ.get(STATE_URL_ENV) or f"sqlite:///{self.root / 'ledger.db'}"
        identity, created = store_id(self.root)
        self.ledger = Ledger(ledger_engine(url), identity)
        if created:
            self._adopt_legacy_parts()

    def _adopt_legacy_parts(self) -> None:
        """Record the parts of a store written before the ledger (once, when it gets its id).

        Such a store kept its keys in the parts themselves; each part's keys are recorded as
        a new writer's would be (a span in two legacy parts of one build is recorded once:
        the later part is then left out, as a duplicate).
        """
        for path in sorted(self.spans_dir.glob("build=*/day=*/part-*.parquet")):
            table = pq.read_table(path, columns=["trace_id", "span_id", "parent_span_id"])
            build = unquote(path.parent.parent.name.removeprefix("build="))
            day = unquote(path.parent.name.removeprefix("day="))
            keys = list(
                zip(
                    table["trace_id"].to_pylist(),
                    table["span_id"].to_pylist(),
                    (p is None for p in table["parent_span_id"].to_pylist()),
                    strict=True,
                )
            )
            try:
                self._record(build, day, str(path.relative_to(self.spans_dir)), keys)
            except IntegrityError:
                continue

    def build_dir(self, build: str) -> Path:
        """The folder of a build's parts."""
        return self.spans_dir / f"build={quote(build, safe='')}"

    def _files(self, build: str, day: str | None = None, trusted: bool | None = None) -> list[Path]:
        return [self.spans_dir / path for path, _, _ in self.ledger.parts(build, day, trusted)]

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
        roots = build_of_roots(rows)
        trace_ids = set(map(_TRACE_ID, rows))
        stored_roots, stored = self.ledger.homes(trace_ids)
        for trace_id in trace_ids.difference(roots).intersection(stored_roots):
            roots[trace_id] = stored_roots[trace_id]
        if not roots and not stored:  # new traces naming no build: the usual batch
            return [default] * len(rows)
        targets = list(map(roots.get, map(_TRACE_ID, rows), repeat(default)))
        if stored:
            # A span already stored keeps its build, whatever arrived since (its root): a retry
            # is a duplicate there, not a second copy under the build its root gave the trace.
            for number, row in enumerate(rows):
                holders = stored.get((row[TRACE_ID], row[SPAN_ID]))
                if holders and targets[number] not in holders:
                    targets[number] = min(holders)
        return targets

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
        trusted: bool = True,
    ) -> int:
        """``write_spans`` for the store rows of spans (``span_table.span_row``).

        ``trusted``: whether the writer could write any build (local ingestion, an evaluation
        token whose build the receiver honoured). An untrusted writer's rootless fragments
        never join another build's trace (the stitching rule, module docstring).
        """
        if targets is None:
            targets = self.builds_for_rows(rows, build)
        return sum(
            self._write_build(target, members, day or ALL_DAYS, trusted)
            for target, members in by_target(rows, targets).items()
        )

    def _write_build(self, build: str, rows: list[Row], day: str, trusted: bool = True) -> int:
        """Store the rows new to ``build``: part on disk, then keys and part in the ledger."""
        folder = self.build_dir(build) / f"day={quote(day, safe='')}"
        folder.mkdir(parents=True, exist_ok=True)
        while True:
            fresh = self._unseen(build, rows)
            if not fresh:
                return 0
            with self.write_lock(build):
                name = write_part(folder, rows_table(fresh, [build] * len(fresh), day))
                relative = str((folder / name).relative_to(self.spans_dir))
                roots = list(map(is_, map(_PARENT_SPAN_ID, fresh), repeat(None)))
                keys = list(zip(map(_TRACE_ID, fresh), map(_SPAN_ID, fresh), roots, strict=True))
                try:
                    self._record(build, day, relative, keys, trusted)
                except IntegrityError:
                    # Another writer committed one of these spans first: ours is not the
                    # store's; look again at what is stored and write the rest.
                    (folder / name).unlink()
                    continue
            return len(fresh)

    def _record(
        self,
        build: str,
        day: str,
        path: str,
        keys: list[tuple[str, str, bool]],
        trusted: bool = True,
    ) -> None:
        """Commit a written part and its keys to the ledger: from now on, it is stored."""
        with self.ledger.engine.begin() as connection:
            self.ledger.record(
                connection, build=build, day=day, path=path, keys=keys, trusted=trusted
            )

    @contextmanager
    def write_lock(self, build: str) -> Iterator[None]:
        """Hold the build's lock from writing a part to recording it.

        Not needed for exactly-once (the ledger's constraint decides), but ``clean`` takes it
        so a part being written on this host is never taken for an orphan.
        """
        self.build_dir(build).mkdir(parents=True, exist_ok=True)
        with open(self.build_dir(build) / ".write.lock", "ab") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _unseen(self, build: str, rows: list[Row]) -> list[Row]:
        """The rows not stored in ``build`` yet (nor earlier in ``rows``)."""
        seen = self.ledger.stored_keys(build, map(_TRACE_ID, rows))
        # Distinct span ids make distinct keys (the pairs are built only when some repeat).
        if not seen and (
            len(set(map(_SPAN_ID, rows))) == len(rows)
            or len(set(zip(map(_TRACE_ID, rows), map(_SPAN_ID, rows), strict=True))) == len(rows)
        ):
            return rows  # the usual case, decided by whole-column sets: new traces, no repeats
        fresh: list[Row] = []
        for row in rows:
            key = (row[TRACE_ID], row[SPAN_ID])
            if key not in seen:
                seen.add(key)
                fresh.append(row)
        return fresh

    def _read_listed(
        self,
        build: str,
        day: str | None = None,
        trace_ids: set[str] | None = None,
        trusted: bool | None = None,
    ) -> pa.Table | None:
        """The build's recorded parts, read; listed again when a compaction removed one.

        ``trusted``: only the parts of trusted (or of untrusted) writers; None: every part.
        """
        for attempt in range(5):
            try:
                return read_parts(self._files(build, day, trusted), trace_ids)
            except FileNotFoundError:
                if attempt == 4:
                    raise
        return None

    def read_spans(self, build: str, day: str | None = None) -> list[Span]:
        """The spans of the build's traces (one day of the build's parts when ``day`` given).

        A trace belongs to the build holding its root: trusted writers' spans of it stored
        under builds that hold no root (children that arrived first) are read here, and are
        not read for those. An untrusted writer's spans are read only with the build they are
        stored under (the stitching rule, module docstring).
        """
        own = self._read_listed(build, day, trusted=True)
        untrusted = self._read_listed(build, day, trusted=False)
        spans: list[Span] = []
        trace_ids: set[str] = set()
        if own is not None and own.num_rows:
            trace_ids = set(own.column("trace_id").to_pylist())
            homes = self.ledger.builds_of(trace_ids)
            elsewhere = {
                t
                for t in trace_ids
                if not homes.get(t, {}).get(build) and any(homes.get(t, {}).values())
            }
            if elsewhere:
                keep = pa.array(sorted(trace_ids - elsewhere), type=pa.string())
                own = own.filter(pc.is_in(own.column("trace_id"), value_set=keep))
            spans = from_table(own)
            seen = {(s.trace_id, s.span_id) for s in spans}
            for other, wanted in sorted(rootless_builds(homes, build).items()):
                extra = self._read_listed(other, None, wanted, trusted=True)
                for span in from_table(extra) if extra is not None else ():
                    if (span.trace_id, span.span_id) not in seen:  # a copy here wins
                        seen.add((span.trace_id, span.span_id))
                        spans.append(span)
        if untrusted is not None and untrusted.num_rows:
            seen = {(s.trace_id, s.span_id) for s in spans}
            spans.extend(s for s in from_table(untrusted) if (s.trace_id, s.span_id) not in seen)
        return spans

    def runs(self, build: str) -> list[AgentRun]:
        """The agent runs of a build, assembled from its traces' spans (``read_spans``)."""
        return assemble_runs(self.read_spans(build))

    def read_traces(self, build: str, trace_ids: set[str]) -> list[AgentRun]:
        """The runs of ``trace_ids`` as stored under ``build`` (one filtered read)."""
        table = self._read_listed(build, None, {t.lower() for t in trace_ids})
        return assemble_runs(from_table(table)) if table is not None and table.num_rows else []

    def version(self, build: str) -> tuple[tuple[str, str, int], ...]:
        """What the store holds now, as far as reading ``build`` goes: every part it records.

        A build's read takes spans of its traces stored under other builds too, so any new or
        compacted part anywhere changes the version. Parts are written once and recorded in
        the ledger only when complete, so an equal version means equal spans, and a reader may
        keep what it assembled from it.
        """
        del build  # every part counts (see above); kept for the reader's call
        return tuple(sorted(self.ledger.parts()))

    def builds(self) -> list[str]:
        """The builds that have stored spans, sorted."""
        return self.ledger.builds()

    def trace_builds(self, trace_id: str) -> dict[str, bool]:
        """The builds holding spans of a trace, each with whether it holds the trace's root."""
        return self.ledger.builds_of([trace_id.lower()]).get(trace_id.lower(), {})

    def find_trace(self, trace_id: str, build: str | None = None) -> tuple[str, list[Span]] | None:
        """``(build, spans)`` of a stored trace, or None when no build holds it.

        Without ``build``: the (first) build holding its root, with the spans of it stored
        under builds that hold no root; with ``build``: the spans stored under that build.
        """
        wanted = trace_id.lower()
        builds = self.trace_builds(wanted)
        if build is not None:
            sources = [build] if build in builds else []
        else:
            rooted = sorted(b for b, has_root in builds.items() if has_root)
            home = rooted[0] if rooted else min(builds, default=None)
            if home is None:
                return None
            build = home
            rootless = [b for b, has_root in builds.items() if not has_root and b != home]
            sources = [home, *rootless] if rooted else [home]
        tables = [
            self._read_listed(source, None, {wanted}, None if source == build else True)
            for source in sources
        ]
        found = [table for table in tables if table is not None and table.num_rows]
        if not found:
            return None
        return build, from_table(pa.concat_tables(found, promote_options="default"))
