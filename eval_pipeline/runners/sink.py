"""Where runners put traces and how they find runs already stored (resumption).

A run is identified by (build, item id, run index), read from the eval context on its root
span. ``TraceStoreSink`` adapts the project's Parquet trace store; ``MemorySink`` keeps spans
in a dict for callers that score in the same process without persisting.
"""

import threading
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import Span

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
    """Spans kept in memory, per build (thread-safe)."""

    def __init__(self) -> None:
        self._spans: dict[str, list[Span]] = defaultdict(list)
        self._lock = threading.Lock()

    def stored_runs(self, build: str) -> set[RunKey]:
        """See ``RunSink``."""
        with self._lock:
            return run_keys(self._spans.get(build, ()))

    def write(self, spans: list[Span], *, build: str) -> None:
        """See ``RunSink``."""
        with self._lock:
            self._spans[build].extend(spans)

    def spans(self, build: str) -> list[Span]:
        """See ``RunSink``."""
        with self._lock:
            return list(self._spans.get(build, ()))


class TraceStoreSink:
    """The project's trace store (``traces.store.trace_store.TraceStore``) as a run sink."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._lock = threading.Lock()

    @classmethod
    def at(cls, root: Path) -> "TraceStoreSink":
        """A sink over the trace store rooted at ``root`` (usually ``Home.store``)."""
        from eval_pipeline.traces.store.trace_store import TraceStore

        return cls(TraceStore(root))

    def stored_runs(self, build: str) -> set[RunKey]:
        """See ``RunSink``."""
        return run_keys(self.spans(build))

    def write(self, spans: list[Span], *, build: str) -> None:
        """See ``RunSink``."""
        with self._lock:
            self._store.write_spans(spans, build=build)

    def spans(self, build: str) -> list[Span]:
        """See ``RunSink``."""
        return list(self._store.read_spans(build))
