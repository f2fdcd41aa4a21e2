"""The receiver's one write path, shared by OTLP/HTTP and OTLP/gRPC.

A request is ingested by the one ingest function in a bounded pool of worker threads, off the
event loop (so liveness answers while big requests are written); when every worker is busy and
the queue is full, the request is refused at once with a retry delay (429 /
``RESOURCE_EXHAUSTED``) instead of queueing without bound. The store fsyncs before ``ingest``
returns; the rows written are then published to the span stream, and only then is the request
acknowledged. A stream that cannot take them makes the request a 503 (``UNAVAILABLE``): the
sender retries, the store keeps each span once, and the stream gets every row of the retry.

Live traffic is production traffic: ``BuildGuard`` files a trace under ``production`` unless
the sender's token may write evaluation builds, and never into a pinned baseline.
"""

import ctypes
import ctypes.util
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, TypeVar

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import Home
from eval_pipeline.realtime.receiver.auth import Grant
from eval_pipeline.realtime.receiver.rpc_status import saturated, unavailable
from eval_pipeline.traces.eval_context import BUILD_ID
from eval_pipeline.traces.ingest.ingest import OtlpRequest, RowStore, ingest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.redact.redactor import RedactionPolicy, load_policy
from eval_pipeline.traces.store.span_table import Row
from eval_pipeline.traces.store.trace_store import PRODUCTION, UNASSIGNED, TraceStore

LOG = logging.getLogger(__name__)
T = TypeVar("T")
_PR_SET_PDEATHSIG = 1


class SpanPublisher(Protocol):
    """Where stored rows go next: the span stream (``eval_pipeline.realtime.stream``)."""

    def publish_rows(self, rows: Sequence[Row], *, builds: Sequence[str], day: str) -> None:
        """Publish the rows (blocking); raises when the stream cannot take them."""
        ...


@dataclass
class Accepted:
    """What one acknowledged request did: the ingest report, and builds not honoured."""

    report: IngestReport
    notes: list[str] = field(default_factory=list)


@dataclass
class BuildGuard:
    """The builds a sender may write: ``production``, or its eval context's when allowed."""

    grant: Grant
    pinned: frozenset[str]
    notes: list[str] = field(default_factory=list)

    def target(self, build: str) -> str:
        """``build`` when the sender may write it, else ``production`` (with a note why)."""
        if build in (PRODUCTION, UNASSIGNED):
            return PRODUCTION
        if not self.grant.writes_evaluation_builds:
            reason = "the token may not write evaluation builds"
        elif build in self.pinned:
            reason = "it is a pinned baseline"
        else:
            return build
        note = f"{BUILD_ID}={build!r} not honoured ({reason}): stored under {PRODUCTION!r}"
        if note not in self.notes:
            self.notes.append(note)
        return PRODUCTION


class CollectingStore:
    """A ``RowStore`` over the trace store: guards the builds, keeps what it wrote for the stream.

    Every row handed to a successful ``write_rows`` is kept (new or already stored: a retry
    after a failed publication publishes them again), with the build it went to.
    """

    def __init__(self, store: TraceStore, guard: BuildGuard) -> None:
        self._store = store
        self._guard = guard
        self.rows: list[Row] = []
        self.builds: list[str] = []

    def builds_for_rows(
        self, rows: Sequence[Row], build: str | None = None, default: str = UNASSIGNED
    ) -> list[str]:
        """The store's choice of build per row, passed through the guard."""
        return list(map(self._guard.target, self._store.builds_for_rows(rows, build, default)))

    def write_rows(
        self,
        rows: Sequence[Row],
        *,
        build: str | None = None,
        day: str | None = None,
        targets: Sequence[str] | None = None,
    ) -> int:
        """Write durably (``TraceStore.write_rows``), then keep the rows for publication."""
        if targets is None:
            targets = self.builds_for_rows(rows, build)
        stored = self._store.write_rows(rows, build=build, day=day, targets=targets)
        self.rows.extend(rows)
        self.builds.extend(targets)
        return stored


_: type[RowStore] = CollectingStore  # checked by mypy: the wrapper is a RowStore


class Writer:
    """Ingests one request durably and publishes what it wrote (module docstring)."""

    def __init__(
        self,
        store: TraceStore,
        *,
        registry: BuildRegistry,
        stream: SpanPublisher | None = None,
        policy: RedactionPolicy | None = None,
        retry_after_s: int = 1,
    ) -> None:
        """Write into ``store``, guard builds with ``registry``'s pins, publish to ``stream``."""
        self.store = store
        self._registry = registry
        self._stream = stream
        self._policy = policy
        self._retry_after_s = retry_after_s

    def write(self, request: OtlpRequest, grant: Grant) -> Accepted:
        """Ingest one request durably, publish what was written; ``Refusal`` 503 if not."""
        guard = BuildGuard(grant, frozenset(self._registry.baselines().values()))
        sink = CollectingStore(self.store, guard)
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        report = ingest(
            [request], store=sink, policy=self._policy, day=day, default_build=PRODUCTION
        )
        if self._stream is not None and sink.rows:
            try:
                self._stream.publish_rows(sink.rows, builds=sink.builds, day=day)
            except Exception as exc:
                # Stored but not published: not acknowledged, so the sender retries (the
                # store keeps each span once; the stream gets the rows again).
                LOG.warning("publishing %d rows failed: %r", len(sink.rows), exc)
                raise unavailable(
                    f"spans stored but not published to the stream ({type(exc).__name__}); retry",
                    self._retry_after_s,
                ) from exc
        return Accepted(report, guard.notes)


@dataclass(frozen=True)
class WriterSpec:
    """How a worker process opens a ``Writer`` of its own (picklable: paths and names)."""

    home_root: Path
    stream_url: str | None = None
    policy: str | None = None
    """A redaction policy file or shipped name (``load_policy``)."""

    def open(self) -> Writer:
        """The writer over the home's store, registry and stream."""
        from eval_pipeline.realtime.stream import open_stream

        home = Home(self.home_root)
        return Writer(
            TraceStore(home.store),
            registry=BuildRegistry(home.state_url),
            stream=open_stream(home, self.stream_url),
            policy=load_policy(self.policy),
        )


_PROCESS_WRITER: list[Writer] = []
"""The writer of this worker process (``WriterSpec.open``, once)."""


def _open_process_writer(spec: WriterSpec, parent: int) -> None:
    _die_with_parent(parent)
    _PROCESS_WRITER.append(spec.open())


def _die_with_parent(parent: int) -> None:
    """Have the kernel stop this worker when the receiver dies (even by SIGKILL).

    Otherwise a killed receiver leaves its workers behind, holding the store and the stream.
    """
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the receiver died before the request above was made
        os._exit(1)


def _process_write(request: OtlpRequest, grant: Grant) -> Accepted:
    return _PROCESS_WRITER[0].write(request, grant)


def _process_started() -> int:
    return os.getpid()


class WritePath:
    """Bounded ingestion off the event loop: threads over a ``Writer``, or worker processes.

    A ``Writer`` runs in ``workers`` threads of this process (the GIL is shared with the
    event loop); a ``WriterSpec`` runs in ``workers`` processes, each with its own writer
    (ingest is CPU-bound Python: processes use every core). Either way at most ``queue`` more
    requests wait, and every other request is refused at once (429).
    """

    def __init__(
        self,
        writer: Writer | WriterSpec,
        *,
        workers: int = 2,
        queue: int = 8,
        retry_after_s: int = 1,
        on_stored: Callable[[IngestReport], None] | None = None,
    ) -> None:
        """Start the pool (``on_stored`` sees each acknowledged request's report)."""
        self._threads = ThreadPoolExecutor(workers, thread_name_prefix="ingest")
        self._processes: ProcessPoolExecutor | None = None
        self._writer: Writer | None = None
        if isinstance(writer, WriterSpec):
            self._processes = ProcessPoolExecutor(
                workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_open_process_writer,
                initargs=(writer, os.getpid()),
            )
            # The pool spawns a process per task submitted while none is idle, and counts
            # each finished task as idle: ``workers`` tasks at once start every process now,
            # not inside the first burst of requests.
            for _ in range(workers):
                self._processes.submit(_process_started)
        else:
            self._writer = writer
        self._slots = threading.BoundedSemaphore(workers + queue)
        self._retry_after_s = retry_after_s
        self._on_stored = on_stored

    def _slot(self) -> None:
        if not self._slots.acquire(blocking=False):
            raise saturated(self._retry_after_s)

    def submit(self, job: Callable[[], T]) -> Future[T]:
        """Run ``job`` on a thread, or refuse now (429) when the pool and queue are full."""
        self._slot()
        future = self._threads.submit(job)
        future.add_done_callback(lambda _: self._slots.release())
        return future

    def submit_traces(self, request: OtlpRequest, grant: Grant) -> Future[Accepted]:
        """Ingest a request in the pool; the future holds what was acknowledged, or why not."""
        if self._processes is None:
            writer = self._writer
            assert writer is not None
            return self.submit(lambda: self._reported(writer.write(request, grant)))
        self._slot()
        done: Future[Accepted] = Future()

        def finish(inner: Future[Accepted]) -> None:
            self._slots.release()
            try:
                done.set_result(self._reported(inner.result()))
            except BaseException as exc:
                done.set_exception(exc)

        self._processes.submit(_process_write, request, grant).add_done_callback(finish)
        return done

    def _reported(self, accepted: Accepted) -> Accepted:
        if self._on_stored is not None:
            self._on_stored(accepted.report)
        return accepted

    @property
    def saturated(self) -> bool:
        """Whether a request now would be refused (readiness)."""
        if not self._slots.acquire(blocking=False):
            return True
        self._slots.release()
        return False

    def close(self) -> None:
        """Finish the requests in the pool, then stop its threads and processes."""
        self._threads.shutdown(wait=True)
        if self._processes is not None:
            self._processes.shutdown(wait=True)
