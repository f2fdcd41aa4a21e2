"""A fake OpenAI-compatible chat endpoint on a free loopback port: fixed latency, optional 429s.

Every ``POST .../chat/completions`` is answered after ``latency`` seconds with the deterministic
reply of ``benchmarks.fake_replies`` (a function of the prompt and the reply schema only, so every
client gets the same answers whatever the order). With ``reject_above`` set, a request arriving
while that many are already being answered gets ``429 Too Many Requests`` at once, with a
``Retry-After`` header, as a provider's concurrency limit does. A prompt containing
``fail_marker`` is answered ``400`` (a request the model refuses; a client must not retry it).

The server counts, on its side, what a client did: requests, answers, refusals, the most
requests in flight at once, and how often each prompt was answered (``answered_twice``), so
tests and ``python -m benchmarks judge`` measure concurrency where it happens.
"""

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from benchmarks.fake_replies import completion, user_prompt


@dataclass
class FakeLLM:
    """The endpoint's settings and what it saw (read the counters under ``lock``)."""

    latency: float = 0.5
    reject_above: int | None = None
    retry_after: float = 1.0
    fail_marker: str | None = None
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)
    requests: int = 0
    answered: int = 0
    rejected: int = 0
    failed: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    arrivals: list[float] = field(default_factory=list)
    answers_per_prompt: Counter[str] = field(default_factory=Counter)

    def reset(self) -> None:
        """Forget the counters (between two measured clients on one server)."""
        with self.lock:
            self.requests = self.answered = self.rejected = self.failed = 0
            self.max_in_flight = 0
            self.arrivals = []
            self.answers_per_prompt = Counter()

    def answered_twice(self) -> int:
        """Prompts answered more than once (a client that asked the same thing again)."""
        with self.lock:
            return sum(1 for n in self.answers_per_prompt.values() if n > 1)

    def _admit(self) -> bool:
        with self.lock:
            self.requests += 1
            self.arrivals.append(time.monotonic())
            if self.reject_above is not None and self.in_flight >= self.reject_above:
                self.rejected += 1
                return False
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return True

    def _leave(self, prompt: str, ok: bool) -> None:
        with self.lock:
            self.in_flight -= 1
            if ok:
                self.answered += 1
                self.answers_per_prompt[hashlib.sha256(prompt.encode()).hexdigest()] += 1
            else:
                self.failed += 1


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default 5 drops SYNs under 16+ concurrent clients


def _handler(state: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as a real provider

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up on this request

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            if not state._admit():
                error = {"message": "too many requests in flight", "type": "rate_limit"}
                self._send(429, {"error": error}, {"Retry-After": f"{state.retry_after:g}"})
                return
            prompt = user_prompt(body)
            ok = not (state.fail_marker and state.fail_marker in prompt)
            try:
                time.sleep(state.latency)
            finally:
                state._leave(prompt, ok)
            if ok:
                self._send(200, completion(body), {})
            else:
                error = {"message": "scripted refusal", "type": "invalid_request_error"}
                self._send(400, {"error": error}, {})

    return Handler


@contextmanager
def fake_llm(
    latency: float = 0.5,
    *,
    reject_above: int | None = None,
    retry_after: float = 1.0,
    fail_marker: str | None = None,
) -> Iterator[FakeLLM]:
    """Serve on 127.0.0.1 at a free port for the block; ``.url`` is the ``/v1`` base URL."""
    state = FakeLLM(latency, reject_above, retry_after, fail_marker)
    httpd = _Server(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield state
    finally:
        stopper = threading.Thread(target=httpd.shutdown, daemon=True)
        stopper.start()
        stopper.join(timeout=10)
        httpd.server_close()
