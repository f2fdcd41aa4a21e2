"""The HTTP runner drives a real loopback agent server and collects its exported spans.

Contract: each run POSTs the item with a W3C ``traceparent``; the agent (the sample support
agent behind ``http.server``, exporting with the real OTLP/HTTP exporter through a batch
processor) continues that trace, so its spans reach the runner's OTLP receiver and are
routed to the run that sent the request; the agent's root is re-rooted with the propagated
parent recorded. An agent that answers an error status, or exports nothing, fails its run.
"""

from collections.abc import Iterator

import httpx
import pytest

from eval_pipeline.runners.http_endpoint import PROPAGATED_PARENT, HttpEndpointRunner
from eval_pipeline.runners.otlp_receiver import SpanReceiver
from eval_pipeline.sample_agent.http_app import AgentServer
from eval_pipeline.sample_agent.items import golden_items
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.runs.assemble import assemble_runs


@pytest.fixture
def receiver() -> Iterator[SpanReceiver]:
    with SpanReceiver() as running:
        yield running


@pytest.fixture
def agent(receiver: SpanReceiver) -> Iterator[AgentServer]:
    server = AgentServer(otlp_endpoint=receiver.endpoint, export_delay_ms=50).start()
    yield server
    server.stop()


def test_runs_collect_the_agents_exported_trace(receiver: SpanReceiver, agent: AgentServer) -> None:
    items = golden_items(3)
    runner = HttpEndpointRunner(
        agent.url, receiver, params={"agent_build": "baseline"}, timeout_s=20
    )
    result = runner.run_items(items, build="http-b", runs_per_item=2, concurrency=3)
    assert result.summary() == {"completed": 6, "failed": 0, "skipped": 0}
    runs = {run.trace_id: run for run in assemble_runs(result.spans)}
    assert set(runs) == {o.trace_id for o in result.outcomes}
    for outcome in result.outcomes:
        run = runs[outcome.trace_id]
        root = run.span(run.root_span_id or "")
        assert root is not None and root.agent_name == "support_agent"
        assert len(root.attributes[PROPAGATED_PARENT]) == 16
        assert run.eval_context.item_id == outcome.item_id
        assert run.eval_context.run_index == outcome.run_index
        assert root.attributes[eval_context.BUILD_ID] == "http-b"
        assert [h.to_agent for h in run.handoffs] == ["refunds_agent"]
        assert "transfer_to_agent" in run.tool_names
        assert {s.resource.get("service.name") for s in run.spans} == {"support-agent"}


def test_error_status_and_missing_export_fail_the_run(
    receiver: SpanReceiver, agent: AgentServer
) -> None:
    item = golden_items(1)
    bad_build = HttpEndpointRunner(
        agent.url, receiver, params={"agent_build": "no-such"}, timeout_s=10
    )
    failed = bad_build.run_items(item, build="http-bad").failed
    assert len(failed) == 1 and "answered 500" in (failed[0].failure_reason or "")
    assert "unknown support-agent build 'no-such'" in (failed[0].failure_reason or "")

    elsewhere = SpanReceiver().start()  # the agent exports to `receiver`, not here
    try:
        silent = HttpEndpointRunner(
            agent.url,
            elsewhere,
            params={"agent_build": "baseline"},
            timeout_s=5.0,  # the agent answers at once; the margin is for a loaded machine
            settle_s=0.1,
        ).run_items(item, build="http-silent")
    finally:
        elsewhere.stop()
    assert [o.failure_reason for o in silent.failed] == ["agent emitted no spans"]


def test_receiver_accepts_only_otlp_protobuf(receiver: SpanReceiver) -> None:
    assert (
        httpx.post(
            receiver.endpoint, content=b"{}", headers={"Content-Type": "application/json"}
        ).status_code
        == 415
    )
    assert (
        httpx.post(
            receiver.endpoint,
            content=b"\xff\x00garbage",
            headers={"Content-Type": "application/x-protobuf"},
        ).status_code
        == 400
    )
