"""The write path's worker processes: a process pool replaced as soon as it breaks.

``ProcessPoolExecutor`` is unusable for good once one of its processes dies (kill -9, the OOM
killer, a crash): every request after that failed at once (500, then 429 forever, while
``/healthz`` said ok). ``WorkerPool`` watches its executor, through public API only: a failed
future or a refused ``submit`` says ``BrokenProcessPool``, and a watcher thread submits a tiny
probe every ``PROBE_S`` so a pool that broke while idle is noticed too. A broken executor is
replaced by a new one at once (its processes start while requests queue for them), and
``problem`` says so until a new worker is ready.

Workers are forked from multiprocessing's fork server, which imported this module (ingest,
the store, the redactor) once: a replacement runs in a fraction of a second, where a spawned
process spent seconds importing (12 s on a loaded machine, while every request waited). Each
worker takes the receiver's environment as it is now (the fork server's is that of its start),
opens its writer (``writer.WriterSpec``) on first use, not in the pool's initializer: an
initializer that raises (a store read-only for a moment at start-up) breaks the whole pool,
where a failed open is one request's 503 and the next request tries again. Each worker ends
when the receiver does (``_die_with_receiver``).
"""

import logging
import multiprocessing
import os
import select
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

from eval_pipeline.realtime.receiver.auth import Grant
from eval_pipeline.realtime.receiver.rpc_status import Refusal, unavailable
from eval_pipeline.realtime.receiver.writer import (
    STORE_UNAVAILABLE,
    Accepted,
    Writer,
    WriterSpec,
    store_failure,
)
from eval_pipeline.traces.ingest.ingest import OtlpRequest

LOG = logging.getLogger(__name__)
T = TypeVar("T")
PROBE_S = 0.2
"""How often an idle pool is checked: a dead worker is replaced within this (plus a start)."""

PRELOAD = (__name__, "pandas")
"""What the fork server imports once for every worker: this module (ingest, the store, the
redactor) and pandas, which pyarrow imports on a process's first table of Python rows (2.4 s
of a fresh worker's first request, measured)."""
_WORKER: dict[str, Any] = {}
"""This worker process's ``spec`` and, once opened, its ``writer``."""


def _context() -> BaseContext:
    """The fork server, with this module imported in it (spawn where there is none)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))
    return context


def _start_worker(spec: WriterSpec, receiver: int, environ: dict[str, str]) -> None:
    _die_with_receiver(receiver)
    os.environ.clear()
    os.environ.update(environ)
    _WORKER["spec"] = spec


def _die_with_receiver(receiver: int) -> None:
    """End this worker when the receiver ends, even by SIGKILL.

    Otherwise a killed receiver leaves its workers behind, holding the store and the stream
    (and the fork server, which lives while its children do). A thread waits on the
    receiver's pidfd (Linux), or checks every second that it still runs.
    """
    try:
        watch: int | None = os.pidfd_open(receiver)
    except ProcessLookupError:  # the receiver died before this worker started
        os._exit(1)
    except (AttributeError, OSError):
        watch = None
    threading.Thread(target=_exit_with, args=(receiver, watch), daemon=True).start()


def _exit_with(receiver: int, watch: int | None) -> None:
    if watch is not None:
        select.select([watch], [], [])
    else:
        while True:
            time.sleep(1)
            try:
                os.kill(receiver, 0)
            except ProcessLookupError:
                break
    os._exit(1)


def _writer() -> Writer:
    if "writer" not in _WORKER:
        try:
            _WORKER["writer"] = _WORKER["spec"].open()
        except STORE_UNAVAILABLE as exc:
            raise unavailable(
                f"the write path cannot open the store ({store_failure(exc)}); retry", 1
            ) from None
    writer: Writer = _WORKER["writer"]
    return writer


def process_write(request: OtlpRequest, grant: Grant) -> Accepted:
    """Write one request in a worker process (the task ``WritePath`` submits)."""
    return _writer().write(request, grant)


def _ready() -> int:
    _writer()
    return os.getpid()


class WorkerPool:
    """``workers`` processes writing with ``spec``'s writer; replaced whenever they break."""

    def __init__(self, spec: WriterSpec, workers: int) -> None:
        """Start the processes (each opens its writer now) and the watcher."""
        self._spec = spec
        self._workers = workers
        self._lock = threading.Lock()
        self._problem: str | None = None
        self.replacements = 0
        """How many broken executors were replaced (the log says when)."""
        self._suspect: ProcessPoolExecutor | None = None
        self._wake = threading.Event()
        self._closed = False
        self._executor = self._start()
        self._watcher = threading.Thread(target=self._watch, name="write-path-watch", daemon=True)
        self._watcher.start()

    @property
    def problem(self) -> str | None:
        """Why the pool cannot write now: replacing dead workers, or a store they cannot open."""
        return self._problem

    def _start(self) -> ProcessPoolExecutor:
        executor = ProcessPoolExecutor(
            self._workers,
            mp_context=_context(),
            initializer=_start_worker,
            initargs=(self._spec, os.getpid(), dict(os.environ)),
        )
        # The pool spawns a process per task submitted while none is idle, and counts each
        # finished task as idle: ``workers`` tasks at once start every process now, not inside
        # the first burst of requests; each opens its writer, so start-up costs no request.
        for _ in range(self._workers):
            ready = executor.submit(_ready)
            ready.add_done_callback(partial(self._finished, executor))
            ready.add_done_callback(partial(self._opened, executor))
        return executor

    def submit(self, fn: Callable[..., T], *args: Any) -> "Future[T]":
        """Run ``fn(*args)`` in a worker; on a broken pool, in its replacement."""
        for _ in range(2):
            executor = self._executor
            try:
                future = executor.submit(fn, *args)
            except BrokenProcessPool:
                self._replace(executor)
                continue
            future.add_done_callback(partial(self._finished, executor))
            return future
        raise unavailable("the write path's worker processes are restarting; retry", 1)

    def _finished(self, executor: ProcessPoolExecutor, future: "Future[Any]") -> None:
        # Runs on the executor's own thread: the watcher does the replacing.
        if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
            self._suspect = executor
            self._wake.set()

    def _opened(self, executor: ProcessPoolExecutor, ready: "Future[int]") -> None:
        if executor is not self._executor or ready.cancelled():
            return
        error = ready.exception()
        if error is None:
            self._problem = None
        elif isinstance(error, Refusal):
            self._problem = error.message
        elif not isinstance(error, BrokenProcessPool):
            self._problem = f"a write-path worker failed to start: {error!r}"

    def wrote(self) -> None:
        """A request was written: whatever kept the workers from writing is over."""
        self._problem = None

    def _watch(self) -> None:
        probe: Future[int] | None = None
        while True:
            self._wake.wait(PROBE_S)
            self._wake.clear()
            if self._closed:
                return
            executor = self._executor
            try:
                if self._suspect is executor:
                    self._replace(executor)
                    probe = None
                elif probe is None or probe.done():
                    try:
                        probe = executor.submit(os.getpid)
                    except BrokenProcessPool:
                        self._replace(executor)
                        probe = None
                    else:
                        probe.add_done_callback(partial(self._finished, executor))
            except RuntimeError:  # no new process or task at interpreter shutdown or close()
                return

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if broken is not self._executor or self._closed:
                return  # replaced already (several requests saw the same break)
            self.replacements += 1
            self._problem = "a write-path worker process died; its pool is being replaced"
            self._executor = self._start()
        LOG.warning(
            "a write-path worker process died: pool replaced (%d so far)", self.replacements
        )
        broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Finish the requests in the pool, then stop its processes and the watcher."""
        with self._lock:
            self._closed = True
        self._wake.set()
        self._watcher.join(timeout=10)
        self._executor.shutdown(wait=True)
