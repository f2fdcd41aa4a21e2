"""Runner spans are stored through the one ingest function, so they are redacted like any other.

Contract: whatever a runner stores (Python entry point or HTTP endpoint, trace store or memory
sink) went through decode -> normalise -> redact -> completeness -> store with the sink's
redaction policy; the project's default policy when none is given. No stored byte holds an
email address of the item; with a policy that keeps tool arguments (an offline evaluation's),
the arguments are stored with the address replaced by its stable token. Redacting what was
stored again (a replay into another build) changes nothing.
"""

import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.home import current_home
from eval_pipeline.runners.http_endpoint import HttpEndpointRunner
from eval_pipeline.runners.otlp_receiver import SpanReceiver
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.runners.sink import MemorySink, TraceStoreSink
from eval_pipeline.sample_agent.http_app import AgentServer
from eval_pipeline.sample_agent.items import adversarial_items
from eval_pipeline.traces.redact.redactor import REPLACED, Redactor, load_policy
from eval_pipeline.traces.store.trace_store import TraceStore

SAMPLE = "eval_pipeline.sample_agent.app:run_item"
PARAMS = {"agent_build": "baseline"}


def _items() -> list[DatasetItem]:
    return adversarial_items()[:2]


def _emails(items: list[DatasetItem]) -> set[str]:
    return {
        value[0]
        for item in items
        for call in item.expected_tool_calls
        for name, value in call.arguments.items()
        if name == "email"
    }


def _stored_text(root: Path) -> str:
    parts = sorted(root.rglob("part-*.parquet"))
    assert parts, f"nothing stored under {root}"
    return "\n".join(json.dumps(pq.read_table(p).to_pylist(), default=str) for p in parts)


def _email_arguments(store: TraceStore, build: str) -> list[object]:
    return [
        call.arguments
        for run in store.runs(build)
        for call in run.tool_calls
        if call.name == "find_user_id_by_email"
    ]


def test_python_runner_stores_no_raw_email_and_keeps_tokenised_arguments() -> None:
    items = _items()
    emails = _emails(items)
    assert len(emails) == 2
    store = TraceStore(current_home().store)
    sink = TraceStoreSink(store, policy=load_policy("keep-tools"))
    result = PythonEntryPointRunner(SAMPLE, params=PARAMS, sink=sink).run_items(
        items, build="redacted-py"
    )
    assert len(result.completed) == 2
    # The agent did put the addresses on its spans: what the runner captured holds them ...
    captured = json.dumps([s.__dict__ for s in result.spans], default=str)
    assert all(email in captured for email in emails)
    # ... and nothing the store holds does.
    stored = _stored_text(store.root)
    assert not [email for email in emails if email.lower() in stored.lower()]
    arguments = _email_arguments(store, "redacted-py")
    assert len(arguments) >= 2
    assert all(str(a["email"]).startswith("[EMAIL:") for a in arguments)  # type: ignore[index]
    root = next(s for s in store.read_spans("redacted-py") if s.parent_span_id is None)
    assert any(key.endswith(":EMAIL") for key in root.attributes[REPLACED])


def test_redacting_stored_spans_again_changes_nothing() -> None:
    # Replay copies stored (redacted) runs through a sink again.
    sink = MemorySink(policy=load_policy("keep-tools"))
    PythonEntryPointRunner(SAMPLE, params=PARAMS, sink=sink).run_items(_items(), build="twice")
    stored = sink.spans("twice")
    assert any(REPLACED in s.attributes for s in stored)
    redactor = Redactor(load_policy("keep-tools"))
    assert [redactor.redact(span) for span in stored] == stored


def test_without_a_policy_the_default_one_drops_tool_arguments() -> None:
    items = _items()
    store = TraceStore(current_home().store)
    PythonEntryPointRunner(SAMPLE, params=PARAMS, sink=TraceStoreSink(store)).run_items(
        items, build="redacted-default"
    )
    assert not [e for e in _emails(items) if e in _stored_text(store.root)]
    dropped = _email_arguments(store, "redacted-default")
    assert len(dropped) >= 2 and set(dropped) == {None}


def test_the_memory_sink_holds_what_the_store_would() -> None:
    items = _items()
    sink = MemorySink(policy=load_policy("keep-tools"))
    PythonEntryPointRunner(SAMPLE, params=PARAMS, sink=sink).run_items(
        items, build="redacted-memory"
    )
    held = json.dumps([s.__dict__ for s in sink.spans("redacted-memory")], default=str)
    assert not [e for e in _emails(items) if e in held]
    assert sink.stored_runs("redacted-memory") == {(item.item_id, 0) for item in items}


@pytest.fixture
def agent_and_receiver() -> Iterator[tuple[AgentServer, SpanReceiver]]:
    with SpanReceiver() as receiver:
        server = AgentServer(otlp_endpoint=receiver.endpoint, export_delay_ms=50).start()
        yield server, receiver
        server.stop()


def test_http_runner_stores_no_raw_email(
    agent_and_receiver: tuple[AgentServer, SpanReceiver],
) -> None:
    agent, receiver = agent_and_receiver
    items = _items()
    store = TraceStore(current_home().store)
    runner = HttpEndpointRunner(
        agent.url,
        receiver,
        params=PARAMS,
        sink=TraceStoreSink(store, policy=load_policy("keep-tools")),
        timeout_s=20,
    )
    assert len(runner.run_items(items, build="redacted-http").completed) == 2
    assert not [e for e in _emails(items) if e.lower() in _stored_text(store.root).lower()]
    assert all(
        str(a["email"]).startswith("[EMAIL:")  # type: ignore[index]
        for a in _email_arguments(store, "redacted-http")
    )
