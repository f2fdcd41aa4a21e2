"""A scripted OpenAI chat-completions server on a loopback socket, for testing the HTTP judge.

Each POST to ``/v1/chat/completions`` takes the next step of the script:
``("ok", verdict_dict)``, ``("text", raw_content)``, ``("slow", seconds, verdict_dict)``,
``("status", code)`` or ``("status", code, headers)``. Request bodies are recorded in arrival
order, and the most requests ever in flight at once.
"""

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from eval_pipeline_tests.loopback_http import serving


class ChatServer:
    """The server's script and what it received."""

    def __init__(self, script: list[tuple[Any, ...]]) -> None:
        self.script = list(script)
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.url = ""
        self.in_flight = 0
        self.max_in_flight = 0

    def enter(self) -> None:
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def next_step(self, body: dict[str, Any]) -> tuple[Any, ...]:
        with self.lock:
            self.bodies.append(body)
            return self.script.pop(0) if self.script else ("status", 599)


def _completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def _handler(server_state: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(
            self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(code)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and hung up: that is the scenario under test

        def do_POST(self) -> None:
            server_state.enter()
            try:
                self._respond()
            finally:
                server_state.leave()

        def _respond(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            step = server_state.next_step(body)
            kind = step[0]
            model = str(body.get("model", ""))
            if kind == "ok":
                self._send(200, _completion(json.dumps(step[1]), model))
            elif kind == "text":
                self._send(200, _completion(step[1], model))
            elif kind == "slow":
                time.sleep(step[1])
                self._send(200, _completion(json.dumps(step[2]), model))
            else:
                code = int(step[1])
                error = {"error": {"message": f"scripted {code}", "type": "test"}}
                self._send(code, error, step[2] if len(step) > 2 else None)

    return Handler


@contextmanager
def chat_server(script: list[tuple[Any, ...]]) -> Iterator[ChatServer]:
    """Serve ``script`` on 127.0.0.1 at an ephemeral port; ``.url`` is the ``/v1`` base URL."""
    state = ChatServer(script)
    with serving(_handler(state)) as httpd:
        state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
        yield state
