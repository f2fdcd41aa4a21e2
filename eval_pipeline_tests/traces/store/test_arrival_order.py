"""A run is one run whatever the arrival order: children exported before their root.

The SDK's processors export a span when it ends, so a long agent run's children reach the
receiver (or a file) before its root. They are stored under the default build (nothing in them
names one); when the root arrives with its eval context, the run is read in the root's build,
with its tool calls, and the default build shows no rootless fragment of it.
"""

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from eval_pipeline.importers.traces.files import ingest_files
from eval_pipeline.realtime.receiver.http_receiver import make_app
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext
from eval_pipeline.traces.store.trace_store import PRODUCTION, UNASSIGNED, TraceStore

BUILD = "cand-9"


def _agent_run() -> list[ReadableSpan]:
    """An agent run as the SDK ends it: the model call, the tool, then the root."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    context = eval_context.to_attributes(EvalContext(build_id=BUILD, item_id="i1", run_index=0))
    request = [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "call_1", "name": "lookup", "arguments": {"q": "x"}}
            ],
        }
    ]
    with tracer.start_as_current_span(
        "invoke_agent support",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "support",
            **context,
        },
    ):
        with tracer.start_as_current_span(
            "chat m",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "m",
                "gen_ai.output.messages": json.dumps(request),
                "gen_ai.usage.input_tokens": 5,
                "gen_ai.usage.output_tokens": 3,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool lookup",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": "call_1",
            },
        ):
            pass
    provider.shutdown()
    spans = list(exporter.get_finished_spans())
    assert [s.name for s in spans][-1] == "invoke_agent support"  # the root ends last
    return spans


def _payload(spans: list[ReadableSpan]) -> bytes:
    return encode_spans(spans).SerializeToString()


def _assert_one_run(store: TraceStore, default: str) -> None:
    (run,) = store.runs(BUILD)
    assert run.tool_names == ("lookup",)
    assert run.eval_context.item_id == "i1" and run.eval_context.build_id == BUILD
    assert run.complete, run.completeness_reasons
    assert store.runs(default) == []  # no rootless half of the run left behind
    assert store.trace_builds(run.trace_id) == {BUILD: True, default: False}
    found = store.find_trace(run.trace_id)
    assert found is not None and found[0] == BUILD and len(found[1]) == 3
    only_default = store.find_trace(run.trace_id, build=default)
    assert only_default is not None and len(only_default[1]) == 2  # explicit: --build


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(make_app(tmp_path), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def test_children_then_root_over_http_give_one_run_in_the_roots_build(receiver, tmp_path):
    spans = _agent_run()
    for batch in (spans[:-1], spans[-1:]):  # the children's request, then the root's
        reply = httpx.post(
            f"{receiver}/v1/traces",
            content=_payload(batch),
            headers={"content-type": "application/x-protobuf"},
            timeout=10,
        )
        assert reply.status_code == 200
    _assert_one_run(TraceStore(tmp_path), PRODUCTION)


def test_children_then_root_in_two_files_give_one_run_in_the_roots_build(tmp_path):
    spans = _agent_run()
    store_root = tmp_path / "store"
    for name, batch in (("children.pb", spans[:-1]), ("root.pb", spans[-1:])):
        path = tmp_path / name
        path.write_bytes(_payload(batch))
        ingest_files([path], store=TraceStore(store_root))  # two separate ingestions
    _assert_one_run(TraceStore(store_root), UNASSIGNED)


def test_a_late_child_after_its_root_is_stored_in_the_roots_build(tmp_path):
    spans = _agent_run()
    store = TraceStore(tmp_path)
    ingest_files_once = [(tmp_path / "a.pb", [spans[0], spans[2]]), (tmp_path / "b.pb", spans[1:2])]
    for path, batch in ingest_files_once:
        path.write_bytes(_payload(batch))
        ingest_files([path], store=store)
    assert store.builds() == [BUILD]
    (run,) = store.runs(BUILD)
    assert run.tool_names == ("lookup",) and run.complete
