"""The receiver's one write path, shared by OTLP/HTTP and OTLP/gRPC: a bounded pool.

A request is written (``writer.Writer``: ingested durably, then published to the span stream)
in a bounded pool of worker threads, or of worker processes (``worker_pool``, replaced when a
process dies), off the event loop (so liveness answers while big requests are written); when
every worker is busy and the queue is full, the request is refused at once with a retry delay
(429 / ``RESOURCE_EXHAUSTED``) instead of queueing without bound. A request takes a slot of
the bound before it starts and gives it back when it ends, on every path: done, failed, or
refused by a pool that could not take it.

``problem`` says why the write path cannot write now (dead workers being replaced, a store or
stream that refused the last write): ``/healthz`` and ``/readyz`` report it.
"""

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from eval_pipeline.realtime.receiver.auth import Grant
from eval_pipeline.realtime.receiver.rpc_status import Refusal, saturated, unavailable
from eval_pipeline.realtime.receiver.worker_pool import WorkerPool, process_write
from eval_pipeline.realtime.receiver.writer import Accepted, Writer, WriterSpec
from eval_pipeline.traces.ingest.ingest import OtlpRequest
from eval_pipeline.traces.ingest.report import IngestReport

T = TypeVar("T")


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
        self._processes: WorkerPool | None = None
        self._writer: Writer | None = None
        if isinstance(writer, WriterSpec):
            self._processes = WorkerPool(writer, workers)
        else:
            self._writer = writer
        self._slots = threading.BoundedSemaphore(workers + queue)
        self._retry_after_s = retry_after_s
        self._on_stored = on_stored
        self._failure: str | None = None

    def _bounded(self, start: Callable[[], "Future[T]"]) -> "Future[T]":
        """Take a slot (or refuse now, 429), start the job; the slot comes back when it ends."""
        if not self._slots.acquire(blocking=False):
            raise saturated(self._retry_after_s)
        try:
            future = start()
        except BaseException:
            self._slots.release()  # the job never started: its slot is free again
            raise
        future.add_done_callback(lambda _: self._slots.release())
        return future

    def submit(self, job: Callable[[], T]) -> "Future[T]":
        """Run ``job`` on a thread, or refuse now (429) when the pool and queue are full."""
        return self._bounded(lambda: self._threads.submit(job))

    def submit_traces(self, request: OtlpRequest, grant: Grant) -> "Future[Accepted]":
        """Ingest a request in the pool; the future holds what was acknowledged, or why not.

        A request whose worker process died answers 503 (``UNAVAILABLE``): it was not
        acknowledged, and the store keeps each span once when the sender retries.
        """
        processes, writer = self._processes, self._writer
        if processes is not None:
            inner = self._bounded(lambda: processes.submit(process_write, request, grant))
        else:
            assert writer is not None
            inner = self._bounded(lambda: self._threads.submit(writer.write, request, grant))
        done: Future[Accepted] = Future()
        inner.add_done_callback(lambda finished: self._finish(finished, done))
        return done

    def _finish(self, inner: "Future[Accepted]", done: "Future[Accepted]") -> None:
        try:
            accepted = inner.result()
        except BrokenProcessPool:
            died = "the write-path worker writing this request died; retry"
            done.set_exception(unavailable(died, self._retry_after_s))
        except Refusal as refusal:
            if refusal.http_status == 503:
                self._failure = refusal.message
            done.set_exception(refusal)
        except BaseException as exc:
            done.set_exception(exc)
        else:
            self._failure = None
            if self._processes is not None:
                self._processes.wrote()
            try:
                if self._on_stored is not None:
                    self._on_stored(accepted.report)
            except BaseException as exc:
                done.set_exception(exc)
                return
            done.set_result(accepted)

    def problem(self) -> str | None:
        """Why the write path cannot write now; None when it can (liveness and readiness)."""
        if self._processes is not None and self._processes.problem is not None:
            return self._processes.problem
        return self._failure

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
            self._processes.close()
