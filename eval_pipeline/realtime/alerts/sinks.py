"""Where alerts go besides the state database: a webhook and JSON lines on stdout.

The webhook gets one POST per alert (the alert's JSON, ``Idempotency-Key: <alert_id>``),
retried a bounded number of times with exponential backoff (tenacity) on connection errors,
timeouts and 429/5xx answers; other 4xx answers are not retried (the request is wrong).
"""

import json
import sys
import threading
from typing import IO, Protocol

import httpx
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from eval_pipeline.realtime.alerts.alert import Alert


class AlertSink(Protocol):
    """Somewhere a new alert is sent once."""

    def send(self, alert: Alert) -> bool:
        """Deliver ``alert``; False when it could not be delivered (it is tried again later)."""
        ...


class WebhookDeliveryError(RuntimeError):
    """The webhook answered with a status worth retrying (429, 5xx)."""


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, WebhookDeliveryError | httpx.TransportError)


class WebhookSink:
    """POST each alert to ``url``: ``attempts`` tries, backoff from ``backoff_s`` doubling."""

    def __init__(
        self,
        url: str,
        *,
        attempts: int = 5,
        backoff_s: float = 0.1,
        max_backoff_s: float = 2.0,
        timeout_s: float = 5.0,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"webhook URL must be http(s)://..., got {url!r}")
        self.url = url
        self.attempts = attempts
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._client = httpx.Client(timeout=timeout_s, trust_env=False)

    def send(self, alert: Alert) -> bool:
        """True once the webhook answered 2xx; False after the retries ran out or a 4xx."""
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            wait=wait_exponential(multiplier=self.backoff_s, max=self.max_backoff_s),
            retry=retry_if_exception(_retryable),
            reraise=False,
        )
        try:
            return bool(retrying(self._post, alert))
        except (RetryError, httpx.HTTPError):
            return False

    def _post(self, alert: Alert) -> bool:
        response = self._client.post(
            self.url, json=alert.as_json(), headers={"Idempotency-Key": alert.alert_id}
        )
        if response.status_code == 429 or response.status_code >= 500:
            raise WebhookDeliveryError(f"webhook answered {response.status_code}")
        return response.is_success

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()


class JsonLinesSink:
    """One JSON line per alert on ``stream`` (stdout by default), flushed at once."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, alert: Alert) -> bool:
        """Write the alert's JSON line."""
        out = self._stream or sys.stdout
        with self._lock:
            out.write(json.dumps(alert.as_json(), sort_keys=True) + "\n")
            out.flush()
        return True
