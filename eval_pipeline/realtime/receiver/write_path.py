"""The receiver's one write path, shared by OTLP/HTTP and OTLP/gRPC: a bounded pool.

A request is written (``writer.Writer``: ingested durably, then published to the span stream)
in a bounded pool of worker threads, or of worker processes, off the event loop (so liveness
answers while big requests are written); when every worker is busy and the queue is full, the
request is refused at once with a retry delay (429 / ``RESOURCE_EXHAUSTED``) instead of
queueing without bound. A worker process opens its own writer (``writer.WriterSpec``) and dies
with the receiver.
"""

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import TypeVar

from eval_pipeline.realtime.receiver.auth import Grant
from eval_pipeline.realtime.receiver.rpc_status import saturated
from eval_pipeline.realtime.receiver.writer import Accepted, Writer, WriterSpec
from eval_pipeline.traces.ingest.ingest import OtlpRequest
from eval_pipeline.traces.ingest.report import IngestReport

T = TypeVar("T")
_PR_SET_PDEATHSIG = 1


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
