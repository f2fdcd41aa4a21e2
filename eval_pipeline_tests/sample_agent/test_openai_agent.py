"""With ``EVAL_PIPELINE_AGENT_BASE_URL`` set, the sample agent runs a real tool-calling loop.

Contract: the agents call an OpenAI-compatible ``/chat/completions`` endpoint through the
``openai`` client, execute the tool calls it returns against the retail database (the hand-off
running the refunds agent as a nested ``invoke_agent``), and record the same GenAI spans, with
the endpoint's token usage and tool-call ids. No model can run here, so the endpoint is a
loopback server replaying a fixed, plausible conversation (a scripted model, not a mock of
the agent: everything on the agent's side runs for real).
"""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.sample_agent.items import golden_items
from eval_pipeline.traces.runs.assemble import assemble_runs

ITEM = next(i for i in golden_items() if i.slices["intent"] == "cancel")
WRITE = next(c for c in ITEM.expected_tool_calls if c.name == "cancel_pending_order")
ORDER = WRITE.arguments["order_id"][0]
SCRIPT = {
    "support": [
        ("get_order_details", {"order_id": ORDER}),
        (
            "transfer_to_agent",
            {
                "agent_name": "refunds_agent",
                "user_id": "u",
                "order_ids": [ORDER],
                "request": f"cancel {ORDER}",
            },
        ),
        ("text", f"Order {ORDER} is cancelled; the refund takes 5 to 7 business days."),
    ],
    "refunds": [
        (
            "confirm_action",
            {"action": "cancel_pending_order", "order_id": ORDER, "details": "cancel"},
        ),
        ("cancel_pending_order", {"order_id": ORDER, "reason": WRITE.arguments["reason"][0]}),
        ("text", f"I have cancelled order {ORDER}."),
    ],
}


def _reply(body: dict[str, Any]) -> dict[str, Any]:
    agent = (
        "refunds" if "You are the refunds agent" in body["messages"][0]["content"] else "support"
    )
    step = sum(1 for m in body["messages"] if m["role"] == "assistant")
    kind, payload = SCRIPT[agent][step]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if kind == "text":
        message["content"], finish = payload, "stop"
    else:
        message["tool_calls"] = [
            {
                "id": f"call_{agent}_{step}",
                "type": "function",
                "function": {"name": kind, "arguments": json.dumps(payload)},
            }
        ]
        finish = "tool_calls"
    prompt = len(json.dumps(body["messages"])) // 4
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20},
    }


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            payload = json.dumps(_reply(body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    monkeypatch.setenv("EVAL_PIPELINE_AGENT_BASE_URL", url)
    monkeypatch.setenv("EVAL_PIPELINE_AGENT_MODEL", "scripted-model")
    yield url
    server.shutdown()
    server.server_close()


def test_tool_calling_loop_against_an_openai_compatible_endpoint(endpoint: str) -> None:
    runner = PythonEntryPointRunner(
        "eval_pipeline.sample_agent.app:run_item",
        params={"agent_build": "baseline"},
    )
    result = runner.run_items([ITEM], build="real-model")
    assert not result.failed, [o.failure_reason for o in result.failed]
    (run,) = assemble_runs(result.spans)
    assert run.tool_names == (
        "get_order_details",
        "transfer_to_agent",
        "confirm_action",
        "cancel_pending_order",
    )
    cancel = run.tool_calls[-1]
    assert cancel.succeeded and cancel.result["status"] == "cancelled"
    assert cancel.agent_name == "refunds_agent" and cancel.call_id == "call_refunds_1"
    assert [h.to_agent for h in run.handoffs] == ["refunds_agent"]
    assert {c.model for c in run.model_calls} == {"scripted-model"}
    assert all((c.input_tokens or 0) > 50 and c.output_tokens == 20 for c in run.model_calls)
    assert run.final_answer == SCRIPT["support"][-1][1]
