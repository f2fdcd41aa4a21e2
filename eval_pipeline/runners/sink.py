"""Where runners put traces and how they find runs already stored (resumption).

Both sinks store a run's spans through the one ingest function (``traces.ingest.ingest``):
normalised, redacted with the sink's ``RedactionPolicy``, judged for completeness, stored once
per (trace id, span id). A runner's spans are thus redacted like any other trace. The policy
is the caller's to choose: an offline evaluation passes its suite's, which keeps the tool
arguments argument scoring needs (personal data inside them still becomes keyed tokens); the
project's default policy (``load_policy()``, which drops tool payloads) applies when none is
given.

A run is identified by (build, item id, run index), read from the eval context on its root
span. ``TraceStoreSink`` adapts the project's Parquet trace store; ``MemorySink`` keeps the
stored rows in memory for callers that score in the same process without persisting.
"""

import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.decode.errors import DecodeResult
from eval_pipeline.traces.ingest.ingest import ingest
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.redact.redactor import RedactionPolicy, load_policy
from eval_pipeline.traces.store.span_table import SPAN_ID, TRACE_ID, Row, row_span
from eval_pipeline.traces.store.trace_store import UNASSIGNED, TraceStore

RunKey = tuple[str, int]
"""(item id, run index)."""


class RunSink(Protocol):
    """Storage for run spans, partitioned by build."""

    def stored_runs(self, build: str) -> set[RunKey]:
        """The (item id, run index) pairs already stored for ``build``."""
        ...

    def write(self, spans: list[Span], *, build: str) -> None:
        """Store the spans of one run (called once per run, as soon as it ends)."""
        ...

    def spans(self, build: str) -> list[Span]:
        """Every stored span of ``build``."""
        ...


def run_keys(spans: Iterable[Span]) -> set[RunKey]:
    """The (item id, run index) of every span carrying an eval context with both set."""
    keys: set[RunKey] = set()
    for span in spans:
        item = span.attributes.get(eval_context.ITEM_ID)
        index = span.attributes.get(eval_context.RUN_INDEX)
        if item is not None and index is not None:
            keys.add((str(item), int(index)))
    return keys


class MemorySink:
    """The rows ingest stores, kept in memory per build (thread-safe)."""

    def __init__(self, policy: RedactionPolicy | None = None) -> None:
        self.policy = policy if policy is not None else load_policy()
        self._rows: dict[str, dict[tuple[str, str], Row]] = {}
        self._lock = threading.Lock()

    def stored_runs(self, build: str) -> set[RunKey]:
        """See ``RunSink``."""
        return run_keys(self.spans(build))

    def write(self, spans: list[Span], *, build: str) -> None:
        """See ``RunSink``: through ``ingest`` with this sink's policy."""
        with self._lock:
            ingest([DecodeResult(spans=spans)], store=self, build=build, policy=self.policy)

    def spans(self, build: str) -> list[Span]:
        """See ``RunSink``."""
        with self._lock:
            rows = list(self._rows.get(build, {}).values())
        return [row_span(row) for row in rows]

    def builds_for_rows(
        self, rows: Sequence[Row], build: str | None = None, default: str = UNASSIGNED
    ) -> list[str]:
        """The ingest store interface (``traces.ingest.ingest.RowStore``): runs name a build."""
        return [build or default] * len(rows)

    def write_rows(
        self,
        rows: Sequence[Row],
        *,
        build: str | None = None,
        day: str | None = None,
        targets: Sequence[str] | None = None,
    ) -> int:
        """The ingest store interface: keeps the rows not held yet; how many were new."""
        written = 0
        for row, target in zip(rows, targets or self.builds_for_rows(rows, build), strict=True):
            held = self._rows.setdefault(target, {})
            key = (row[TRACE_ID], row[SPAN_ID])
            if key not in held:
                held[key] = row
                written += 1
        return written


class TraceStoreSink:
    """The project's trace store (``traces.store.trace_store.TraceStore``) as a run sink."""

    def __init__(self, store: TraceStore, policy: RedactionPolicy | None = None) -> None:
        self._store = store
        self.policy = policy if policy is not None else load_policy()
        self._lock = threading.Lock()

    @classmethod
    def at(cls, root: Path, policy: RedactionPolicy | None = None) -> "TraceStoreSink":
        """A sink over the trace store rooted at ``root`` (usually ``Home.store``)."""
        return cls(TraceStore(root), policy)

    def stored_runs(self, build: str) -> set[RunKey]:
        """See ``RunSink``."""
        return run_keys(self.spans(build))

    def write(self, spans: list[Span], *, build: str) -> None:
        """See ``RunSink``: through ``ingest`` with this sink's policy."""
        with self._lock:
            ingest([DecodeResult(spans=spans)], store=self._store, build=build, policy=self.policy)

    def spans(self, build: str) -> list[Span]:
        """See ``RunSink``."""
        return list(self._store.read_spans(build))
