"""A process-wide budget of request bytes in memory: the receiver's global memory cap.

Each request is bounded on its own (``http_body.BodyLimits``), but not their sum: 24
connections each sending 64 KB of gzip that inflates to 63 MB, then stalling, held 1.5 GB
until the body deadline (300 would need 19 GB). Every request body, as it is read and
inflated, is counted against one ``InflightBudget`` until its answer is sent (the bytes are
held that long: read, queued, ingested); a request whose next piece would take the total past
the budget is refused at once with 429 and a retry delay (``RESOURCE_EXHAUSTED`` on gRPC) and
its bytes let go, so the receiver's request memory stays under the budget whatever clients
send. The HTTP event loop and the gRPC threads share the budget (a lock guards it).
"""

import threading

from eval_pipeline.realtime.receiver.rpc_status import Refusal

DEFAULT_INFLIGHT_BYTES = 256 * 1024 * 1024
"""The default budget: four requests of the largest inflated size (64 MB) at once."""


class InflightBudget:
    """Bytes of request bodies the receiver holds at once, at most ``limit_bytes``."""

    def __init__(self, limit_bytes: int = DEFAULT_INFLIGHT_BYTES, retry_after_s: int = 1) -> None:
        """A budget of ``limit_bytes``; refusals ask the sender to retry after ``retry_after_s``."""
        if limit_bytes <= 0:
            raise ValueError(f"the in-flight budget must be positive, got {limit_bytes}")
        self.limit_bytes = limit_bytes
        self._retry_after_s = retry_after_s
        self._held = 0
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """Bytes held now by requests in progress."""
        return self._held

    def request(self) -> "Reservation":
        """A request's reservation (``with``): what it took is given back when the block ends."""
        return Reservation(self)

    def try_take(self, size: int) -> bool:
        """Count ``size`` bytes if they fit under the budget; whether they did."""
        with self._lock:
            if self._held + size > self.limit_bytes:
                return False
            self._held += size
            return True

    def give_back(self, size: int) -> None:
        """Uncount ``size`` bytes taken before."""
        with self._lock:
            self._held -= size

    def refusal(self) -> Refusal:
        """The 429 of a request that would take the receiver past its budget."""
        return Refusal(
            429,
            f"the receiver holds {self.limit_bytes:,} bytes of requests already; retry later",
            self._retry_after_s,
        )


class Reservation:
    """The bytes one request holds against the budget."""

    def __init__(self, budget: InflightBudget) -> None:
        """An empty reservation on ``budget``."""
        self._budget = budget
        self.size = 0

    def take(self, size: int) -> None:
        """Count ``size`` more bytes of this request, or raise the 429 ``Refusal``."""
        if not self._budget.try_take(size):
            raise self._budget.refusal()
        self.size += size

    def release(self) -> None:
        """Give every byte back (idempotent)."""
        size, self.size = self.size, 0
        if size:
            self._budget.give_back(size)

    def __enter__(self) -> "Reservation":
        """The reservation, released when the block ends (however it ends)."""
        return self

    def __exit__(self, *_: object) -> None:
        """Release the reservation; an exception goes on untouched."""
        self.release()
