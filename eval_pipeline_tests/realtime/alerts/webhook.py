"""A real local webhook: an HTTP server on loopback recording the alerts POSTed to it."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Webhook:
    """Records every accepted alert; answers 503 to the first ``fail_first`` requests."""

    def __init__(self, fail_first: int = 0) -> None:
        self.received: list[dict[str, Any]] = []
        self.requests = 0
        self._fail_first = fail_first
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with owner._lock:
                    owner.requests += 1
                    failing = owner.requests <= owner._fail_first
                    if not failing:
                        owner.received.append(json.loads(body))
                self.send_response(503 if failing else 200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                """Quiet."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/alerts"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def ids(self) -> list[str]:
        """Alert ids received, in order (duplicates kept)."""
        with self._lock:
            return [alert["alert_id"] for alert in self.received]

    def close(self) -> None:
        """Stop the server."""
        self._server.shutdown()
        self._server.server_close()
