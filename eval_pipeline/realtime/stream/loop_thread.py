"""An asyncio event loop on a daemon thread, so synchronous callers can drive async clients.

nats-py is asyncio-only, while the receiver's ingest workers and the detector workers are
threads. Every coroutine of one client runs on one loop (its connection belongs to it); a
caller blocks on ``run`` with a timeout, and a timed-out coroutine is cancelled, not left to
finish behind the caller's back.
"""

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """A running event loop on its own thread; ``run`` submits coroutines to it."""

    def __init__(self, name: str = "stream-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """The coroutine's result; raises ``TimeoutError`` (cancelling it) after ``timeout_s``."""
        if threading.current_thread() is self._thread:
            raise RuntimeError("LoopThread.run called from its own loop (would deadlock)")
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout_s)
        except concurrent.futures.TimeoutError:
            if future.done():  # its own TimeoutError (the same class since 3.11), or late
                return future.result()
            future.cancel()
            raise TimeoutError(f"stream call did not finish within {timeout_s} s") from None

    def stop(self) -> None:
        """Stop the loop and join its thread."""
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()
