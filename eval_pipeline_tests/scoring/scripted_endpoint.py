"""A scripted OpenAI-compatible chat-completions endpoint on loopback, answering deterministically.

Every reply is a function of the request's user prompt and the JSON schema it asks for
(``benchmarks.fake_replies``, shared with ``python -m benchmarks judge``): the same prompt and
schema get the same JSON whoever asks, which is what lets a parity test compare a library metric
run directly with our adapter over the same endpoint.

``fail_first`` answers that many requests with HTTP 503 first (to show retries); ``requests``
records every request body in arrival order.
"""

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from benchmarks.fake_replies import completion, requested_schema, scripted_reply, user_prompt
from eval_pipeline_tests.loopback_http import serving

__all__ = ["requested_schema", "scripted_endpoint", "scripted_reply", "user_prompt"]


@dataclass
class ScriptedEndpoint:
    """What the endpoint received, and how many 503s it still owes."""

    fail_first: int = 0
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(state: ScriptedEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            with state.lock:
                state.requests.append(body)
                failing = state.fail_first > 0
                state.fail_first -= failing
            code, payload = (
                (503, {"error": {"message": "scripted 503", "type": "test"}})
                if failing
                else (200, completion(body))
            )
            data = json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def scripted_endpoint(fail_first: int = 0) -> Iterator[ScriptedEndpoint]:
    """Serve on 127.0.0.1 at an ephemeral port; ``.url`` is the ``/v1`` base URL."""
    state = ScriptedEndpoint(fail_first=fail_first)
    with serving(_handler(state)) as httpd:
        state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        yield state
