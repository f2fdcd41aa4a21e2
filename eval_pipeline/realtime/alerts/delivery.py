"""The webhook outbox's sender: alerts reach the webhook once, also across worker restarts.

A detector worker stores its new alerts claimed for the delivery thread
(``AlertStore.record(claim_s=)``) and hands them over (``AlertDelivery.send``): they are posted
as soon as they are committed, with no transaction between detection and the webhook, and
marked delivered. Every ``sweep_s`` the thread also claims and posts whatever else is
undelivered (an alert the webhook refused, one whose worker died holding its claim). Its own
module because it is its own thread with its own failure story (a slow or failing webhook),
apart from the worker's stream consumption.
"""

import threading
import time
from collections import deque
from collections.abc import Sequence

from eval_pipeline.realtime.alerts.alert import Alert
from eval_pipeline.realtime.alerts.sinks import WebhookSink
from eval_pipeline.realtime.alerts.store import AlertStore


class AlertDelivery:
    """The webhook outbox's sender: one thread posting alerts from the store.

    A worker stores its new alerts claimed for ``lease_s`` (``AlertStore.record(claim_s=)``)
    and hands them over (``send``): they are posted at once, with no transaction between
    detection and the webhook. Every ``sweep_s`` the thread also claims and posts whatever
    else is undelivered (an alert the webhook refused, one whose worker died holding it).
    """

    def __init__(
        self,
        store: AlertStore,
        webhook: WebhookSink,
        *,
        sweep_s: float = 1.0,
        lease_s: float = 30.0,
    ) -> None:
        self.store = store
        self.webhook = webhook
        self.sweep_s = sweep_s
        self.lease_s = lease_s
        self._handed: deque[tuple[float, Alert]] = deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="alert-delivery", daemon=True)

    def start(self) -> "AlertDelivery":
        """Start the delivery thread."""
        self._thread.start()
        return self

    def send(self, alerts: Sequence[Alert]) -> None:
        """Post these alerts now: stored claimed for ``lease_s``, committed, by the caller."""
        handed = time.monotonic()
        self._handed.extend((handed, alert) for alert in alerts)
        self._wake.set()

    def _run(self) -> None:
        next_sweep = time.monotonic()
        while not self._stop.is_set():
            self._wake.wait(max(0.0, next_sweep - time.monotonic()))
            self._wake.clear()
            self.deliver_handed()
            if time.monotonic() >= next_sweep:
                self.deliver_pending()
                next_sweep = time.monotonic() + self.sweep_s

    def deliver_handed(self) -> int:
        """Post the alerts handed over; how many the webhook accepted.

        One whose claim is half gone (a webhook slow for a long time) is left to the sweep,
        which claims it again, so no claim ever covers two senders.
        """
        fresh: list[Alert] = []
        while self._handed:
            handed, alert = self._handed.popleft()
            if time.monotonic() - handed < self.lease_s / 2:
                fresh.append(alert)
        return self._post(fresh) if fresh else 0

    def deliver_pending(self) -> int:
        """Post every claimable undelivered alert; how many the webhook accepted."""
        delivered = 0
        while claimed := self.store.claim_undelivered(lease_s=self.lease_s):
            accepted = self._post(claimed)
            delivered += accepted
            if accepted < len(claimed):
                break  # the webhook is failing: wait for the next sweep
        return delivered

    def _post(self, claimed: Sequence[Alert]) -> int:
        """Post claimed alerts in order; mark the accepted delivered, release the rest."""
        accepted: list[str] = []
        for alert in claimed:
            if not self.webhook.send(alert):
                break  # the webhook is failing (after its retries): the rest wait too
            accepted.append(alert.alert_id)
        self.store.mark_delivered(accepted)
        self.store.release([a.alert_id for a in claimed[len(accepted) :]])
        return len(accepted)

    def stop(self) -> None:
        """Stop after the current delivery; alerts handed over and not posted are released."""
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
        self.store.release([alert.alert_id for _, alert in self._handed])
        self._handed.clear()
        self.webhook.close()
